"""Finding contacts in text: phone numbers (`phonenumbers`, plus vanity numbers such as
1-800-MEDICARE), URLs and bare domains (kept only when their suffix is on the bundled public-suffix
list), and the registry's service names. Pure functions on the text, with character spans."""

from __future__ import annotations

import re
from dataclasses import dataclass

from medeval.agents.contacts.registry import e164, psl
from medeval.schemas import ContactRegistry, ServiceName


@dataclass(frozen=True)
class Found:
    start: int
    end: int
    text: str
    normalized: str


# A US toll-free or area-code number spelled with letters: 1-800-MEDICARE, (877) SHIP-HELP.
_VANITY = re.compile(
    r"(?<![\w-])(?:\+?1[\s.-]?)?\(?([2-9]\d\d)\)?[\s.-]?((?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,4}-?[A-Z0-9]{2,8})(?![\w])"
)
# A host with at least one dot, optionally a scheme before and a path after.
_URL = re.compile(
    r"(?i)(?<![@\w.-])(https?://)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9])"
    r"(:\d{2,5})?(/[^\s<>\"'\]]*)?"
)
_TRAILING = ".,;:!?)'\""
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
PASSAGE_MAX = 320


def find_phones(text: str) -> list[Found]:
    """Every phone number in the text, digits or letters, with its E.164 form."""
    import phonenumbers

    found: list[Found] = []
    for m in phonenumbers.PhoneNumberMatcher(text, "US"):
        start, raw = m.start, m.raw_string
        if raw.startswith("(") and ")" not in raw[1:5]:
            # "(1-800-633-4227)": the matcher keeps the opening parenthesis of the aside.
            start, raw = start + 1, raw[1:]
        normal = phonenumbers.format_number(m.number, phonenumbers.PhoneNumberFormat.E164)
        found.append(Found(start, m.end, raw, normal))
    for v in _VANITY.finditer(text):
        if any(f.start < v.end() and v.start() < f.end for f in found):
            continue
        # The letters map to keypad digits; only the first seven count (1-800-MEDICARE has eight).
        digits = re.sub(r"\D", "", phonenumbers.convert_alpha_characters_in_number(v.group(2)))
        spelled = e164(v.group(1) + digits[:7]) if len(digits) >= 7 else None
        if spelled is not None:
            found.append(Found(v.start(), v.end(), v.group(0), spelled))
    return sorted(found, key=lambda f: f.start)


def find_urls(text: str) -> list[Found]:
    """Every URL or bare domain whose suffix is a public one, with its lowercased host."""
    found = []
    for m in _URL.finditer(text):
        scheme, host, _port, path = m.groups()
        suffix = host.rsplit(".", 1)[1]
        # "coverage.Plans" is a missing space, not a domain: a bare one needs a lowercase suffix.
        if not scheme and not host.lower().startswith("www.") and suffix != suffix.lower():
            continue
        if psl().publicsuffix(host.lower(), accept_unknown=False) is None:
            continue
        raw = m.group(0)
        if path:
            raw = raw.rstrip(_TRAILING)
        found.append(Found(m.start(), m.start() + len(raw), raw, host.lower()))
    return found


def find_names(text: str, registry: ContactRegistry) -> list[tuple[Found, ServiceName]]:
    """The registry's service names in the text, longest first where they overlap, leaving out a name
    that the next word turns into something else ("Medicare Advantage", "Social Security benefits")."""
    after = {w.lower() for w in registry.not_a_service_after}
    hits: list[tuple[Found, ServiceName]] = []
    for name in registry.names:
        for m in re.finditer(rf"(?<![\w-]){re.escape(name.phrase)}(?![\w-])", text):
            nxt = re.match(r"[\s'’s]*([A-Za-z]+)", text[m.end() :])
            if nxt and nxt.group(1).lower() in after:
                continue
            hits.append((Found(m.start(), m.end(), m.group(0), name.service), name))
    hits.sort(key=lambda h: (h[0].start, -(h[0].end - h[0].start)))
    kept: list[tuple[Found, ServiceName]] = []
    for hit in hits:
        if not kept or hit[0].start >= kept[-1][0].end:
            kept.append(hit)
    return kept


def find_cues(text: str, cues: list[str]) -> list[Found]:
    return sorted(
        (
            Found(m.start(), m.end(), m.group(0), cue)
            for cue in cues
            for m in re.finditer(rf"(?i)(?<!\w){re.escape(cue)}(?!\w)", text)
        ),
        key=lambda f: f.start,
    )


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around a span: from the last sentence end before it to the next one after it."""
    begin = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        begin = m.end()
    stop = _SENTENCE_END.search(text, end)
    return begin, stop.end() if stop else len(text)


def passage(text: str, start: int, end: int) -> str:
    """The sentence a contact stands in, cut to PASSAGE_MAX characters around it."""
    begin, stop = sentence_bounds(text, start, end)
    if stop - begin > PASSAGE_MAX:
        half = (PASSAGE_MAX - (end - start)) // 2
        begin, stop = max(begin, start - half), min(stop, end + half)
    return " ".join(text[begin:stop].split())

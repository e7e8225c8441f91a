"""Controlled perturbations of a reference answer for the judge bias probes (engine/probes.py).

Each probe makes two versions of one answer (or of its answer key) that a person would code the
same, so an unbiased judge gives both the same category; the share of answers whose category
changes is the judge's flip rate for that probe (docs/methodology.md, "Judge bias probes"):

- order: the same answer judged against the key with its facts, checklist items and disallowed
  claims shuffled (seeded);
- length: the answer, and the answer padded with neutral text that states nothing about Medicare;
- format: the same sentences as plain prose, and as markdown with a heading, bullets and a table;
- position: a long answer with one wrong statement (a disallowed claim of the key) early, and the
  same with it at the end.
"""

from __future__ import annotations

import random
import re

from medeval.schemas import Scenario

PROBES = ("order", "length", "format", "position")

#: Content-free padding: courtesy and structure, no fact a key could support or contradict.
PADDING = (
    "I hope this overview is useful as you think things through.",
    "Everyone's situation is a little different, so it can help to go through the details slowly.",
    "Take your time with it, and feel free to write down any questions as they come up.",
    "It is completely normal to find these choices a lot to take in at first.",
    "Many people find it easier to look at one piece at a time rather than everything at once.",
    "Thank you for asking such a thoughtful question.",
    "I am happy to go over any part of this again in a different way if that would help.",
    "Please let me know if anything here is unclear or if you would like more detail on any part.",
)

_MARKUP = re.compile(r"(\*\*|__|`|^#+\s*|^\s*[-*+]\s+|^\s*\d+[.)]\s+)", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def sentences(answer: str) -> list[str]:
    """The answer's sentences with its markdown removed (table rows read as their cells)."""
    lines = []
    for line in answer.splitlines():
        line = line.strip()
        if not line or set(line) <= set("|-: "):
            continue
        if line.startswith("|"):
            line = ". ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
        line = _MARKUP.sub("", line).strip()
        if line:
            lines.append(line if line[-1] in ".!?:" else line + ".")
    return [s.strip() for s in _SENTENCE.split(" ".join(lines)) if s.strip()]


def as_prose(answer: str) -> str:
    """Plain paragraphs of about three sentences, no markup."""
    parts = sentences(answer)
    return "\n\n".join(" ".join(parts[i : i + 3]) for i in range(0, len(parts), 3))


def as_markdown(answer: str) -> str:
    """A heading, the sentences as bullets, and a two-column table of the first points."""
    parts = sentences(answer)
    if not parts:
        return answer
    table = [
        "| # | Point |",
        "|---|---|",
        *(f"| {i} | {p.replace('|', '/')} |" for i, p in enumerate(parts[:3], 1)),
    ]
    return "\n".join(["## Summary", "", *(f"- {p}" for p in parts), "", "### Key points", "", *table])


def padded(answer: str, sentences_added: int = len(PADDING)) -> str:
    """The answer followed by a paragraph of neutral padding."""
    return answer.rstrip() + "\n\n" + " ".join(PADDING[:sentences_added])


def with_statement(answer: str, statement: str, *, early: bool) -> str:
    """A long answer (padded) holding `statement` after its first sentence, or at its very end."""
    text = statement.strip().rstrip(".") + "."
    long_answer = padded(answer)
    if not early:
        return long_answer.rstrip() + " " + text
    first, _, rest = long_answer.partition("\n")
    head = _SENTENCE.split(first, maxsplit=1)
    if len(head) == 2:
        return f"{head[0]} {text} {head[1]}\n{rest}".rstrip()
    return f"{first} {text}\n{rest}".rstrip()


def wrong_statement(scenario: Scenario) -> str | None:
    """A statement the key marks wrong: its first disallowed claim."""
    claims = scenario.answer_key.disallowed_claims
    return claims[0].text if claims else None


def shuffled(scenario: Scenario, seed: int) -> Scenario:
    """The scenario with its key's facts, disallowed claims and every group's checklist in a
    seeded random order: the same key, presented differently."""
    rng = random.Random(seed)

    def mixed(items: list[object]) -> list[object]:
        out = list(items)
        rng.shuffle(out)
        return out

    key = scenario.answer_key
    groups = [g.model_copy(update={"items": mixed(list(g.items))}) for g in key.question_groups]
    new_key = key.model_copy(
        update={
            "canonical_facts": mixed(list(key.canonical_facts)),
            "disallowed_claims": mixed(list(key.disallowed_claims)),
            "question_groups": groups,
        }
    )
    return scenario.model_copy(update={"answer_key": new_key})

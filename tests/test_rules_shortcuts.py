"""The rules coder's shortcuts give the answers of the slow paths they replace: prose lines stripped
a run at a time, an item's patterns screened in one search or by the words they need, one reading
per sentence shared by the checklist and the claims, the key prepared once per scenario."""

from __future__ import annotations

import random

from medeval.agents import rules
from medeval.agents.rulecoder import text
from medeval.agents.rulecoder.index import key_index
from medeval.agents.rulecoder.keyed import Memo, compile_pattern
from medeval.agents.rulecoder.screen import required, screen
from medeval.agents.rulecoder.structure import read_structure
from medeval.scenarios.load import bundled_scenarios_dir, expand_paths, load_scenario
from medeval.schemas import Scenario


def _reference_strip(line: str) -> text.Piece:
    """The character-by-character markdown stripping the prose path replaced."""
    out = text._Builder()
    lead = text._LINE_LEAD.match(line)
    begin = lead.end() if lead else 0
    body = line[begin:].rstrip()
    end = begin + len(body)
    if body.rstrip().endswith("#"):
        end = begin + len(body.rstrip("# "))
    drop = [False] * len(line)
    for link in text._LINK.finditer(line, begin, end):
        drop[link.start()] = True
        for i in range(link.start(1) + len(link.group(1)), link.end()):
            drop[i] = True
    for mark in text._EMPHASIS.finditer(line, begin, end):
        for i in range(mark.start(), mark.end()):
            drop[i] = True
    for i in range(begin, end):
        if not drop[i]:
            out.add(line[i], i)
    while out.chars and out.chars[-1] in (" ", ",", "|"):
        out.chars.pop()
        out.offsets.pop()
    return out.piece()


def _fast_strip(line: str) -> text.Piece:
    out = text._Builder()
    text._strip_line(line, 0, out)
    return out.piece()


def test_prose_lines_strip_as_character_by_character() -> None:
    rng = random.Random(7)
    alphabet = [*"ab c*_`~[]()#>-+.:!?\t $5%1,", "**", "__", "[x](http://a.b)", "\u00a0", "1. ", "- ", "  "]
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 50))) for _ in range(4000)]
    lines += [
        "- **Part B** premium:  $202.90 a month  ",
        "### See [Medicare.gov](https://www.medicare.gov) for __your__ plan ##",
        "`code` and ~~struck~~ text, with *emphasis*,",
    ]
    lines = [line for line in lines if line.count("|") < 2]  # table rows keep the old path
    for line in lines:
        assert _fast_strip(line) == _reference_strip(line), repr(line)


def _scenarios() -> list[Scenario]:
    return [load_scenario(p) for p in expand_paths([bundled_scenarios_dir()])]


_SAMPLES = [
    "You can delay Part B without a penalty while you have coverage from current employment.",
    "The Part B premium is $185 a month in 2026, and there is no late enrollment penalty.",
    "Open Enrollment runs October 15 to December 7; Medicaid pays your premiums.",
    "I can't say whether the plan covers it - ask 1-800-MEDICARE.",
    "## Does Medicare cover long-term care?\n\n| Plan | Premium |\n|---|---|\n| Harborview | $0 |",
    "Unlike Original Medicare (which has no cap), Advantage plans limit what you pay: $9,250 in 2026.",
]


def _texts(scenario: Scenario) -> list[str]:
    """Short texts a pattern may or may not match: samples, the key's own statements (each matches
    some support pattern) and their clauses, and the statements cut at every word."""
    texts = list(_SAMPLES)
    for fact in scenario.canonical_facts:
        texts.append(fact.statement)
        words = fact.statement.split()
        texts += [" ".join(words[i:]) for i in range(1, len(words), 3)]
    for sample in _SAMPLES:
        texts += [s.text for s in read_structure(sample)]
    return texts


def test_screen_finds_a_match_exactly_when_one_pattern_does() -> None:
    checked = ruled_out = 0
    for scenario in _scenarios():
        texts = _texts(scenario)
        for item in key_index(scenario).keyed:
            patterns = item.support + item.contradict + item.stale
            joined = screen(patterns).joined
            for n, sample in enumerate(texts):
                one = None
                if joined is not None and n < len(_SAMPLES) + 40:
                    one = any(compile_pattern(p).search(sample) for p in patterns)
                    assert (joined.search(sample) is not None) == one, (item.item_id, sample)
                # The words a pattern needs never rule out a text it matches.
                if item.screen.rules_out(sample):
                    if one is None:
                        one = (joined or compile_pattern("|".join(patterns))).search(sample) is not None
                    assert not one, (item.item_id, sample)
                    ruled_out += 1
                checked += 1
    assert checked > 5000 and ruled_out > checked // 2


def test_the_words_a_pattern_needs() -> None:
    assert required(r"\bpart b\b") == {"part b"}
    # Any one of a branch's words; the longest requirement of a sequence.
    assert required(r"(?:premium|deductible)s? (?:is|of) \$\d") == {"premium", "deductible"}
    assert required(r"\$\d+ (?:a|per) month") == {" month"}
    # Optional or negated text is not needed; a look-ahead's text is.
    assert required(r"(?:medigap )?plans?") == {"plan"}
    assert required(r"^(?!.*\bnot\b)cover") == {"cover"}
    assert required(r"cap(?=.*2026)") == {"2026"}
    assert required(r"\d+|x") is None


def test_patterns_that_cannot_be_joined_are_not_screened() -> None:
    assert screen((r"(a)\1", "b")).joined is None  # a back-reference would point at another group
    assert screen(("(?P<x>a)", "(?P<x>b)")).joined is None  # a name used twice
    assert screen(()).rules_out("anything")
    assert screen(("(?i)a", "b")).joined is None  # global flags not at the start
    # Still ruled out by the words it needs.
    assert screen((r"(a)\1", "b")).rules_out("xyz") and not screen((r"(a)\1", "b")).rules_out("aa")
    # Text that is not ASCII is left to the expressions (case folding reaches beyond ASCII).
    assert not screen(("kelvin",)).rules_out("\u212aelvin")


def test_one_reading_per_sentence_gives_the_same_codes_and_verdicts() -> None:
    scenario = next(s for s in _scenarios() if s.answer_key.question_groups)
    answer = (
        "Medicare Part B covers doctor visits. **You can sign up** during your Initial Enrollment Period.\n\n"
        "- If you have coverage from current employment you may be able to delay Part B without a penalty."
    )
    claims = rules.extract_claims(answer, "t1")
    for group in scenario.groups():
        memo: Memo = {}
        shared = (
            rules.code_answer(scenario, group, answer, memo),
            rules.label_claims(claims, scenario, memo),
        )
        alone = (rules.code_answer(scenario, group, answer), rules.label_claims(claims, scenario))
        assert shared == alone
        assert memo  # the claims were read from the memo the checklist filled


def test_the_key_is_prepared_once_per_scenario_object() -> None:
    first, second = _scenarios()[:2]
    assert key_index(first) is key_index(first)
    assert key_index(second) is not key_index(first)
    copy = first.model_copy(deep=True)
    assert key_index(copy) is not key_index(first)  # another object: its own index
    assert [k.item_id for k in key_index(copy).keyed] == [k.item_id for k in key_index(first).keyed]

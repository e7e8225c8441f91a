"""The rules coder's shortcuts give the answers of the slow paths they replace: prose lines stripped
a run at a time, an item's patterns screened in one search, one reading per sentence shared by the
checklist and the claims, the key prepared once per scenario."""

from __future__ import annotations

import random

from medeval.agents import rules
from medeval.agents.rulecoder import text
from medeval.agents.rulecoder.index import key_index
from medeval.agents.rulecoder.keyed import Memo, _screen, compile_pattern
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


def test_screen_finds_a_match_exactly_when_one_pattern_does() -> None:
    samples = [
        "You can delay Part B without a penalty while you have coverage from current employment.",
        "The Part B premium is $185 a month in 2026, and there is no late enrollment penalty.",
        "Open Enrollment runs October 15 to December 7; Medicaid pays your premiums.",
        "I can't say whether the plan covers it - ask 1-800-MEDICARE.",
    ]
    checked = 0
    for scenario in _scenarios():
        for item in key_index(scenario).keyed:
            patterns = item.support + item.contradict + item.stale
            screen = _screen(patterns)
            if screen is None:
                continue
            for sample in [*samples, item.statement]:
                one = any(compile_pattern(p).search(sample) for p in patterns)
                assert (screen.search(sample) is not None) == one, (item.item_id, sample)
                checked += 1
    assert checked > 500


def test_patterns_that_cannot_be_joined_are_not_screened() -> None:
    assert _screen((r"(a)\1", "b")) is None  # a back-reference would point at another group
    assert _screen(("(?P<x>a)", "(?P<x>b)")) is None  # a name used twice
    never = _screen(())
    assert never is not None and never.search("anything") is None
    assert _screen(("(?i)a", "b")) is None  # global flags not at the start


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

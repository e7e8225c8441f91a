"""A contradiction of a point off the group's checklist goes to a person, not to Incorrect.

The key's patterns for one question's points fired on other questions' answers: on the real-shaped
parts the coder had not seen (rounds 6-10), most Incorrect codes resting only on another question's
point were misreadings, and whether a true one matters to the question is the study's materiality
call. The coder decides Incorrect on the group's own points (checklist items, partial-credit facts,
the facts its rule names as Incorrect, the key's disallowed claims, which settle a general
question's group only when said of the persona's plan); any other contradiction is an unsettled
reading, with the passage and the reason.
"""

from __future__ import annotations

from medeval.agents import rules
from medeval.agents.rulecoder.coder import OFF_CHECKLIST
from medeval.agents.rulecoder.index import key_index
from medeval.schemas import Label

from .conftest import rules_benchmark
from .rules_support import key

ONLY = "ship_medicare_only"
WRONG_PREMIUM = "You'll also pay the Part B premium, which is $185 a month in 2026."
QG9 = (
    "No, you don't have to sign up for Medicare at 65 while you're covered by your employer plan from "
    "current work. If you delay Part B, there's no late enrollment penalty as long as you sign up within "
    "8 months after that coverage ends. Because your employer has 20 or more employees, your group plan "
    "pays first. If you do enroll, you can keep your employer plan too: the two work together. "
)
QG10 = (
    "Medicare Advantage plans often cost less and add extras, but use networks, so you may not keep your "
    "doctor; they cover everything Parts A and B cover, and you still pay the Part B premium. "
)
QG15 = (
    "Harborview's own premium is in its Summary of Benefits or on Medicare Plan Finder; many plans charge "
    "$0, others more. "
)


def _coded(group: str, answer: str) -> tuple[str, list[str]]:
    scenario = key(ONLY)
    out = rules.code_answer(scenario, group, answer)
    got, _ = rules_benchmark().category(scenario, group, out)
    return str(got), out.uncertain


def test_the_same_wrong_premium_is_incorrect_where_it_is_the_point_and_a_persons_call_elsewhere() -> None:
    # The Part B premium is QG15's own point (its rule names it): Incorrect.
    assert _coded("QG15", QG15 + WRONG_PREMIUM)[0] == "incorrect"
    assert _coded("QG15", QG15 + WRONG_PREMIUM.replace("$185", "$202.90"))[0] != "incorrect"
    # In the sign-up answer it is another question's point: sent to a person, with the passage.
    got, uncertain = _coded("QG9", QG9 + WRONG_PREMIUM)
    assert got == "needs_review"
    assert any("PARTB_PREMIUM_2026" in u and OFF_CHECKLIST in u and "$185" in u for u in uncertain)
    assert _coded("QG9", QG9 + WRONG_PREMIUM.replace("$185", "$202.90"))[0] == "accurate_complete"


def test_an_own_contradiction_beside_an_off_checklist_one_is_still_incorrect() -> None:
    wrong_rule = "Medicare automatically enrolls everyone at 65, so you must take Part B now. "
    assert _coded("QG9", QG9 + wrong_rule + WRONG_PREMIUM)[0] == "incorrect"


def test_claims_are_not_contradicted_by_an_off_checklist_point_when_the_group_is_known() -> None:
    scenario = key(ONLY)
    claims = rules.extract_claims(QG9 + WRONG_PREMIUM, "Q2")
    with_group = rules.label_claims(claims, scenario, group="QG9")
    without = rules.label_claims(claims, scenario)
    assert not any(v.label == Label.CONTRADICTED for v in with_group)
    assert [set(v.evidence) for v in without if v.label == Label.CONTRADICTED] == [
        {"PARTB_PREMIUM_2026", "TM_PARTB_COSTS"}
    ]
    own = rules.label_claims(rules.extract_claims(QG15 + WRONG_PREMIUM, "Q8"), scenario, group="QG15")
    assert any(v.label == Label.CONTRADICTED for v in own)


def test_the_groups_own_points() -> None:
    index = key_index(key(ONLY))
    qg12 = index.group("QG12").own
    assert qg12 is not None
    # Checklist item, partial-credit fact, the rule's Incorrect fact, a disallowed claim.
    assert {"LTC_NONE_COVER", "SNF_TIME_LIMITED", "INVENTED_PLAN_PREMIUM"} <= qg12
    assert "PARTB_PREMIUM_2026" not in qg12 and "PARTD_CAP_2026" not in qg12
    assert "PARTB_PREMIUM_2026" in (index.group("QG15").own or set())
    # A general question's group (its rule names no invented specific) is not settled by an
    # invented specific said of a plan the sentence does not name; a plan question's is.
    assert "INVENTED_PLAN_PREMIUM" in index.group("QG12").unnamed
    assert not index.group("QG15").unnamed
    assert index.plan_in_general("The plan premium may be $0.")
    assert not index.plan_in_general("Harborview's plan premium is $0.")
    assert not index.plan_in_general("Your plan: $0 premium, and the plan covers atorvastatin.")
    assert not index.plan_in_general("Buckeye Example Dual Complete is the plan for you, at $0.")
    assert not index.plan_in_general("Specialist visits cost a $35 copay.")
    assert not index.plan_in_general("For you, a Plan G policy would cost about $118 a month.")


def test_a_plan_premium_in_a_general_answer_goes_to_a_person() -> None:
    myth = '- *"Medicare Advantage is free."* The plan premium may be $0, but the Part B premium is yours.'
    general, uncertain = _coded("QG10", QG10 + myth)
    assert general == "needs_review" and any(OFF_CHECKLIST in u for u in uncertain)
    assert _coded("QG15", QG15 + "The plan premium may be $0.")[0] == "incorrect"
    assert _coded("QG10", QG10 + "Harborview's plan premium may be $0.")[0] == "incorrect"

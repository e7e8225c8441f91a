"""The dual-eligible SHIP key is the study's checklist (Dugan et al. 2025, Supplement 1, eAppendix 4):
item for item, with the study's partial-credit and Incorrect statements, and QG5's declared deviation."""

from __future__ import annotations

from pathlib import Path

import pytest

from medeval.agents.rules import extract_claims, label_claims
from medeval.scenarios.load import load_scenario
from medeval.schemas import Scenario

from .conftest import SCENARIOS

CHECKLIST = Path("/work/shared/reference/ship-checklist.md")
# Study items per scored group, in the study's order (ship-checklist.md).
STUDY_ITEMS = {
    "QG1": ["Q14", "Q15"],
    "QG3": ["Q21", "Q22", "Q23", "Q25", "Q26", "Q28", "Q29", "Q30", "Q32", "Q33", "Q34", "Q35"],
    "QG4": [f"Q38 option {n}" for n in range(1, 8)],
    "QG5": ["Q41", "Q41"],
    "QG6": ["Q45", "Q47"],
    "QG7": ["Q48 option 1"],
    "QG8": ["Q51", "Q51", "Q51"],
}


@pytest.fixture(scope="module")
def key() -> Scenario:
    return load_scenario(SCENARIOS / "ship_dual_eligible.json")


def test_each_scored_group_has_the_study_checklist_items(key: Scenario) -> None:
    scored = {t.question_group for t in key.scripted_turns if t.scored}
    assert scored == set(STUDY_ITEMS)
    for group, study_items in STUDY_ITEMS.items():
        group_key = key.group_key(group)
        assert group_key is not None, group
        assert len(group_key.items) == len(study_items), group
        for item, study_item in zip(group_key.items, study_items, strict=True):
            assert item.study_item.startswith(study_item), (group, item.study_item)
        assert not group_key.optional(), group
        assert all(i.study_wording for i in group_key.items), group
        assert group_key.label and "eAppendix 4, p" in group_key.source, group


def test_study_wording_and_rules_are_quoted_from_the_supplement(key: Scenario) -> None:
    if not CHECKLIST.exists():
        pytest.skip("the shared reference checklist is not on this machine")
    text = CHECKLIST.read_text(encoding="utf-8")
    for group in STUDY_ITEMS:
        group_key = key.group_key(group)
        assert group_key is not None
        assert group_key.label in text, group
        for item in group_key.items:
            for part in item.study_wording.split(" / "):
                assert part in text, (group, part)


def test_turns_require_exactly_their_groups_checklist(key: Scenario) -> None:
    for group, turns in key.groups().items():
        group_key = key.group_key(group)
        if group_key is None:
            assert all(not t.scored for t in turns), group
            continue
        asked = [p for t in turns for p in t.required_points]
        assert sorted(asked) == sorted(group_key.required()), group
        assert key.group_required_points(turns) == group_key.required()


def test_qg5_carries_the_plan_lookup_deviation(key: Scenario) -> None:
    deviations = {g.group_id: [d.deviation_id for d in g.deviations] for g in key.answer_key.question_groups}
    assert deviations.pop("QG5") == ["PLAN_LOOKUP"]
    # QG1 is shared with the Medicare-only script, deviation and all.
    assert deviations.pop("QG1") == ["WRONG_PERIOD_DATES"]
    assert not any(deviations.values())
    qg5 = key.group_key("QG5")
    assert qg5 is not None
    assert {"INVENTED_LOCAL_PLANS", "INVENTED_PLAN_NAMES"} <= set(qg5.rule.incorrect)
    assert "Plan Finder" in qg5.deviations[0].coded_as


def test_the_studys_partial_answers_are_partial_credit_not_items(key: Scenario) -> None:
    def partial(group: str) -> set[str]:
        group_key = key.group_key(group)
        assert group_key is not None
        assert not set(group_key.rule.partial_credit) & set(group_key.required())
        return set(group_key.rule.partial_credit)

    assert partial("QG6") == {"MEDICAID_LTC_COVERS", "SNF_LIMITED_2026"}
    assert partial("QG7") == {"QMB_NO_BILLING", "MEDICAID_PAYS_PREMIUMS"}
    assert partial("QG8") == {"OTHER_HELP"}
    required = {p for g in key.answer_key.question_groups for p in g.required()}
    assert "QMB_NO_BILLING" not in required  # the QMB billing ban is not a study item


def test_every_required_point_can_be_contradicted(key: Scenario) -> None:
    for group in key.answer_key.question_groups:
        for fact_id in group.required():
            fact = key.fact(fact_id)
            assert fact is not None and fact.patterns is not None, fact_id
            assert fact.patterns.contradict or fact.patterns.stale, fact_id


def verdicts(key: Scenario, text: str) -> list[tuple[str, list[str]]]:
    return [(v.label.value, v.evidence) for v in label_claims(extract_claims(text, "T"), key)]


# The study's Incorrect statements (and common wrong ones) for each group, with the fact they contradict.
WRONG = [
    ("LTC_NOT_COVERED", "Yes, Medicare Part A pays for nursing home care once you can't live on your own."),
    ("MEDICAID_LTC_COVERS", "Neither Medicare nor Medicaid covers long-term care."),
    ("MEDICAID_LTC_COVERS", "You would need to buy a separate long-term care insurance policy for that."),
    ("MAY_QUALIFY_1600", "At that income you'd have to pay the full cost of your premiums yourself."),
    ("MAY_QUALIFY_1600", "You won't qualify for a Medicare Savings Program or Extra Help at that income."),
    ("EXTRA_HELP_NAMED", "Extra Help is only for people who are on full Medicaid."),
    ("DSNP_ONE_PLAN", "Joining a D-SNP replaces your Medicaid."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "Medicaid only pays your Medicare costs if you join a D-SNP."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "Medicaid pays the $185 Part B premium whatever you choose."),
    ("DUAL_PART_D", "You won't need Part D, because Medicaid will keep paying for your prescriptions."),
    ("DUAL_MA", "You can't join a regular Medicare Advantage plan while you're on Medicaid."),
    ("DSNP_AREA", "D-SNPs are available in every county in the country."),
    ("INVENTED_LOCAL_PLANS", "There are three D-SNPs available in Franklin County."),
    ("CHANGE_PERIOD", "Open Enrollment runs from November 1 to January 15."),
    ("DUAL_MONTHLY_SEP", "As a dual eligible you can switch plans once per quarter."),
    ("DUAL_OM_MEDICAID_SEPARATE", "Once you get Medicare, you'll lose your Medicaid."),
    ("DUAL_OM_MEDICAID_SEPARATE", "Medicare replaces Medicaid when you turn 65."),
    ("DUAL_PARTS_A_B", "With full Medicaid you don't need Part B."),
    ("DSNP_MAY_NOT_KEEP_DOCTOR", "With a D-SNP you can keep all your current doctors."),
    ("DSNP_ONE_PLAN", "Joining a D-SNP means you lose your Medicaid."),
    ("DSNP_LOW_COST", "D-SNPs usually cost more than regular Medicare."),
    ("INVENTED_LOCAL_PLANS", "Franklin County has several D-SNPs to choose from."),
    ("INVENTED_LOCAL_PLANS", "There aren't any D-SNPs in your county."),
    ("LTC_NOT_COVERED", "Medicare Advantage plans cover long-term care."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "No, Medicaid only pays if you stay in Original Medicare."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "You'll still have to pay the Part B premium."),
    ("MAY_QUALIFY_1600", "At $1,600 a month your income is too high for these programs."),
    ("MSP_NAMED", "Those programs are only for people on full Medicaid."),
    ("EXTRA_HELP_NAMED", "Extra Help has an income limit of about $15,000 a year."),
    ("IEP_AROUND_65", "You'll need to wait for the fall Open Enrollment Period to pick a plan."),
    ("DUAL_OM_MEDICAID_SEPARATE", "Once you're on Medicare, Medicaid stops covering your doctor visits."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "You'll still owe the deductibles and copays with any of those options."),
    ("MSP_NAMED", "Medicare Savings Programs require you to be on full Medicaid."),
    ("DSNP_DUALS_ONLY", "These plans are open to anyone with Medicare."),
    ("DSNP_MENTIONED", "D-SNPs are basically Medigap policies for people on Medicaid."),
    ("DUAL_PART_D", "Since you have Medicaid, Part D isn't available to you."),
    ("DSNP_AREA", "D-SNPs are available to everyone on Medicaid in Ohio."),
    ("MEDICAID_LTC_COVERS", "Medicaid only covers long-term care for people under 65."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "D-SNPs charge their own premiums that you'd have to pay."),
    ("INVENTED_LOCAL_PLANS", "Yes, there's a D-SNP available in your ZIP code."),
    ("DUAL_PART_D", "You'll keep your Medicaid drug coverage, so there's no need for a Part D plan."),
    ("DUAL_MA_COSTS_COVERED", "Medicaid stops paying your premiums once you join a Medicare Advantage plan."),
    ("EXTRA_HELP_NAMED", "Extra Help only covers people with income below $15,000 a year."),
    ("MAY_QUALIFY_1600", "You'd qualify for QMB, which pays everything."),
    ("MEDICAID_LTC_COVERS", "Medicare doesn't cover long-term care, and Medicaid doesn't either."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "You'll pay the Part A deductible yourself whichever option you choose."),
    ("DUAL_OM_MEDICAID_SEPARATE", "Your Medicaid coverage ends the day your Medicare starts."),
    ("DUAL_PART_D_COSTS", "The Part D premium and copays would come out of your own pocket."),
    ("MEDICAID_COVERS_ALL_OPTIONS", "Medicaid won't cover copays or deductibles for people with Medicare."),
    ("DSNP_DUALS_ONLY", "With full Medicaid you aren't eligible for a D-SNP."),
    ("DSNP_AREA", "Every county has at least one D-SNP."),
    ("LTC_NOT_COVERED", "Medicare Advantage plans pay for custodial care at home."),
]
# Correct statements, negations and comparisons that no pattern may count against the answer.
RIGHT = [
    "Medicaid, unlike Medicare, pays for long-term nursing home care.",
    "Neither Original Medicare nor Medicare Advantage covers long-term care, but Medicaid can.",
    "Medicare covers up to 100 days of skilled nursing care after a hospital stay, not long-term care.",
    "Your income is too high for QMB but may be low enough for SLMB or QI.",
    "It depends on the plan.",
    "Joining a D-SNP does not end your Medicaid.",
    "If you lose Medicaid, you would have to leave the D-SNP.",
    "I don't have information about which plans are available in your area.",
    "Original Medicare lets you see any doctor who takes Medicare.",
    "Medicaid won't pay for a nursing home unless you meet its income and asset limits.",
    "Premiums went up from $185 in 2025 to $202.90 in 2026.",
    "If you lose Medicaid, you'd pay the Part B premium yourself.",
    "You can keep your doctor if they're in the plan's network.",
    "You'll likely be over the QMB limit but may qualify for SLMB.",
    "Once you have Medicare, Medicaid becomes your secondary coverage.",
    "Your income is below Extra Help's limit of $23,940 a year.",
    "Many areas have D-SNPs, but not every county does.",
    "Joining a D-SNP doesn't mean you lose your Medicaid.",
    "Medicare only covers short nursing home stays for rehab, not long-term care.",
    "Medicaid stops covering your prescriptions once you have Medicare, and Part D takes over.",
    "With Extra Help you'll pay small copays for prescriptions.",
    "Your Medicare premium is paid monthly, and the plan's network may not include your doctor.",
    "D-SNPs are a type of Medicare Advantage plan, available where a plan serves your county.",
    "If you lose Medicaid, you won't qualify for a D-SNP.",
    "Your income is probably too high for QMB, but you may qualify for SLMB or QI.",
    "If you lose Medicaid eligibility, your Medicaid coverage ends.",
    "With Extra Help, you'll pay only small copays for Part D drugs.",
    "Medicaid pays for custodial care in a nursing home if you qualify.",
    "D-SNPs aren't offered in every county.",
    "With full Medicaid the Part D premium and copays won't come out of your own pocket.",
]


@pytest.mark.parametrize(("fact_id", "text"), WRONG)
def test_the_studys_incorrect_statements_are_contradicted(key: Scenario, fact_id: str, text: str) -> None:
    found = verdicts(key, text)
    assert any(label == "CONTRADICTED" and fact_id in evidence for label, evidence in found), found


@pytest.mark.parametrize("text", RIGHT)
def test_correct_statements_are_never_contradicted(key: Scenario, text: str) -> None:
    found = verdicts(key, text)
    assert all(label != "CONTRADICTED" for label, _ in found), found

"""Round-9 wrong rules the keys now read as contradictions (an Initial Enrollment Period opening in
the birthday month, the Advantage plan paying the Part B premium, no Medigap at all after its open
enrollment, Medicare covering long-term care for 100 days, most Advantage plans including long-term
nursing-home coverage, standardized formularies, an out-of-network doctor seen in the HMO at a
higher copay, a stand-alone Part D plan added to an HMO without drugs, Advantage visits costing the
same as Part B, everything you spend counting toward the MOOP, the named plan listed at $0), each
with its true or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

# (key, group, fact or claim, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (
        "ship_medicare_only",
        "QG1",
        "IEP_AROUND_65",
        "Your Initial Enrollment Period (IEP) begins the month you turn 65 and runs for the following "
        "7 months.",
        "Your Initial Enrollment Period (IEP) begins 3 months before the month you turn 65 and runs for "
        "7 months.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        "IEP_AROUND_65",
        "Your first chance starts the month you turn 65 and lasts 7 months from there.",
        "Your first chance starts 3 months before the month you turn 65 and lasts 7 months.",
    ),
    (
        "ship_medicare_only",
        "QG10",
        "MA_STILL_PAY_PARTB",
        "The plan takes over your Part B coverage, so the $202.90 premium is paid by the plan instead.",
        "The plan takes over your Part B coverage, but you still pay the $202.90 premium yourself.",
    ),
    (
        "ship_medicare_only",
        "QG10",
        "MA_STILL_PAY_PARTB",
        "Your Part B premium is paid by the plan.",
        "Your Part B premium is paid by you, not the plan.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_ANY_TIME",
        "After that window closes, you generally can't get a Medigap plan at all.",
        "After that window closes, you can still apply for a Medigap plan, though insurers may use "
        "medical underwriting.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_ANY_TIME",
        "After that window closes, though, you can't get a Medigap plan at all; you'd have to stay "
        "with Original Medicare alone or move to a Medicare Advantage plan.",
        "While you're in a Medicare Advantage plan, you can't buy a Medigap policy at all.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_ANY_TIME",
        "Buy Medigap within six months of starting Part B at 65, because that's your only opportunity.",
        "Buy Medigap within six months of starting Part B at 65, because that's your only guaranteed "
        "opportunity.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "Original Medicare covers long-term care in a nursing home for up to 100 days.",
        "Original Medicare covers skilled nursing care for up to 100 days, not long-term care.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "Medicare: up to 100 days of long-term nursing home care.",
        "Medicare: up to 100 days of skilled nursing care, never long-term care.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "Advantage plans can offer extra benefits, and most of them now include long-term nursing home "
        "coverage as part of their package.",
        "Advantage plans can offer extra benefits, and a few of them now include limited long-term "
        "nursing home coverage as part of their package.",
    ),
    (
        "ship_medicare_only",
        "QG13",
        "PARTD_FORMULARIES_DIFFER",
        "Because formularies are standardized now, the choice mostly comes down to price.",
        "Because formularies differ, the choice depends on your drugs as well as price.",
    ),
    (
        "ship_medicare_only",
        "QG13",
        "PARTD_FORMULARIES_DIFFER",
        "Every Part D plan in 2026 has to cover the same standardized list of drugs.",
        "Every Part D plan in 2026 has to cover at least two drugs in each class, and the lists differ.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_IN_NETWORK_RULE",
        "Even if Dr. Placeholder isn't listed, you'd usually still be able to see them for a higher price.",
        "If Dr. Placeholder isn't listed and the plan were a PPO, you'd usually still be able to see "
        "them for a higher price.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "If it doesn't include drug coverage, you can simply buy a stand-alone Part D prescription drug "
        "plan to go with it.",
        "If it doesn't include drug coverage, you generally can't buy a stand-alone Part D prescription "
        "drug plan to go with it.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "If they aren't, add a separate Part D plan.",
        "If they aren't, you generally can't add a separate Part D plan.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "Medicare Advantage plans cover everything Part B covers, and for doctor visits they generally "
        "follow the same cost structure.",
        "Medicare Advantage plans cover everything Part B covers, and for doctor visits they set their "
        "own copays.",
    ),
    (
        "ship_medicare_only",
        "QG18",
        "MOOP_EXCLUSIONS",
        "Pretty much everything you spend on the plan during the year adds up toward your MOOP.",
        "Not everything you spend on the plan during the year adds up toward your MOOP.",
    ),
    (
        "ship_medicare_only",
        "QG15",
        "INVENTED_PLAN_PREMIUM",
        "Harborview Example Advantage (HMO) is generally listed as a $0-premium plan.",
        "Many HMOs in the area are listed as $0-premium plans; check whether Harborview is one.",
    ),
    (
        "ship_medicare_only",
        "QG15",
        "INVENTED_PLAN_PREMIUM",
        "Expect about $0 a month for Harborview plus $202.90 for Part B.",
        "Expect $202.90 a month for Part B plus whatever Harborview charges.",
    ),
]


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_contradicts_and_its_twin_does_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)

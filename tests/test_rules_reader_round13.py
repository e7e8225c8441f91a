"""The false Incorrect found on the round-13 corpus (issue 22), its held-out reading by the coder
after round 12's fixes, fixed afterwards in general, as a minimal pair: a paragraph that is one bold
label of what is wrong ("**Common confusions.**") heads the list after it, as "Common mistakes:"
does, so its quoted items are denied, not asserted.
"""

from __future__ import annotations

from .rules_support import minimal_pair

LTC = (
    "None of them covers long-term custodial care: not Original Medicare, not Medicare Advantage plans, "
    "not Medigap policies. Medicare covers only short-term skilled nursing care after a hospital stay.\n\n"
)
ITEMS = (
    '- "Some Medicare Advantage plans now cover long-term care." Some offer limited in-home support, '
    "which isn't the same as covering custodial care.\n"
)


def test_a_bold_label_of_what_is_wrong_denies_its_list() -> None:
    minimal_pair(
        "ship_medicare_only",
        "QG12",
        LTC + "**Common confusions.**\n\n" + ITEMS,
        LTC + "**Good news.**\n\n" + ITEMS.replace('"Some', "Some").replace('care."', "care."),
    )

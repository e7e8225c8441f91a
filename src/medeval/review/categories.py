"""The study's four categories and the checklist codes as people write them, read liberally.

Coders type "A&C", "Accurate and Complete" or "accurate_complete"; a spreadsheet says "SBI". Every
spelling of one category maps to its one stored value, and anything else is an error the caller
reports with the accepted spellings.
"""

from __future__ import annotations

import re
from typing import Literal

from medeval.schemas import ItemStatus

StudyCategory = Literal["accurate_complete", "substantive_incomplete", "not_substantive", "incorrect"]
#: Incorrect first: it is the error that matters most, and every validity table leads with it.
STUDY_CATEGORIES: tuple[StudyCategory, ...] = (
    "incorrect",
    "accurate_complete",
    "substantive_incomplete",
    "not_substantive",
)
CATEGORY_LABELS: dict[str, str] = {
    "accurate_complete": "Accurate and Complete",
    "substantive_incomplete": "Substantive but Incomplete",
    "not_substantive": "Not Substantive",
    "incorrect": "Incorrect",
    "needs_review": "Needs review",
    "not_scored": "Not scored",
}
CATEGORY_SHORT: dict[str, str] = {
    "accurate_complete": "A&C",
    "substantive_incomplete": "SBI",
    "not_substantive": "NS",
    "incorrect": "Incorrect",
    "needs_review": "Review",
    "not_scored": "Not scored",
}
ItemCode = ItemStatus
ITEM_CODES: tuple[ItemCode, ...] = ("covered", "contradicted", "absent")

_ALIASES: dict[str, StudyCategory] = {
    "accuratecomplete": "accurate_complete",
    "accurateandcomplete": "accurate_complete",
    "aandc": "accurate_complete",
    "ac": "accurate_complete",
    "substantiveincomplete": "substantive_incomplete",
    "substantivebutincomplete": "substantive_incomplete",
    "substantivebutnotcomplete": "substantive_incomplete",
    "sbi": "substantive_incomplete",
    "si": "substantive_incomplete",
    "notsubstantive": "not_substantive",
    "nonsubstantive": "not_substantive",
    "ns": "not_substantive",
    "incorrect": "incorrect",
    "inaccurate": "incorrect",
    "inc": "incorrect",
}
ACCEPTED = "accurate_complete (A&C), substantive_incomplete (SBI), not_substantive (NS) or incorrect"


def _squash(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower().replace("&", "and"))


def parse_category(value: object) -> StudyCategory | None:
    """The stored value of one of the study's four categories, or None if `value` names none."""
    if not isinstance(value, str):
        return None
    return _ALIASES.get(_squash(value))


def parse_item_code(value: object) -> ItemCode | None:
    if not isinstance(value, str):
        return None
    squashed = _squash(value)
    return next((code for code in ITEM_CODES if code == squashed), None)


def normalise_group(value: object, known: list[str]) -> str | None:
    """The scenario's own id for a question group written as "QG1", "qg 1", "1" or 1."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    by_upper = {g.upper(): g for g in known}
    if text.upper() in by_upper:
        return by_upper[text.upper()]
    compact = re.sub(r"[\s_\-]", "", text).upper()
    if compact.isdigit():
        compact = f"QG{int(compact)}"
    elif compact.startswith("QG") and compact[2:].isdigit():
        compact = f"QG{int(compact[2:])}"
    return by_upper.get(compact)

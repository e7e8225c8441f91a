"""Size limits on what the judges see, so one runaway answer or judge cannot stall or bankrupt a run.

Each limit truncates, never drops silently: what was cut is recorded as an unscored item on the
trial, so a reader sees that a score covers part of an answer. Scenario length is limited at load
(`scenarios.MAX_SCENARIO_TURNS`), where a too-long scenario is refused with a line naming the limit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from medeval.schemas import Unscored

if TYPE_CHECKING:
    from medeval.agents.extractor import Extraction
    from medeval.engine.types import Answered

#: Characters of one answer passed to the extractor and the verifiers (about 25 pages of text; the
#: longest bundled fake answer is under 2,000). The transcript keeps the whole answer.
MAX_JUDGED_ANSWER_CHARS = 60_000
#: Claims of one turn sent to the verifiers (a long, dense answer yields a few dozen).
MAX_CLAIMS_PER_TURN = 200


def limit_answer(answer: Answered, unscored: list[Unscored]) -> Answered:
    """The answer as the judges see it: its first MAX_JUDGED_ANSWER_CHARS characters. A prefix, so
    every quote span found in it is a valid span of the whole answer too."""
    size = len(answer.response)
    if size <= MAX_JUDGED_ANSWER_CHARS:
        return answer
    unscored.append(
        Unscored(
            item=f"turn {answer.turn.turn_id}: answer length",
            reason=(
                f"the answer has {size:,} characters; the judges saw the first "
                f"{MAX_JUDGED_ANSWER_CHARS:,} (MAX_JUDGED_ANSWER_CHARS)"
            ),
        )
    )
    return replace(answer, response=answer.response[:MAX_JUDGED_ANSWER_CHARS])


def limit_claims(extraction: Extraction) -> Extraction:
    """At most MAX_CLAIMS_PER_TURN claims go to the verifiers; the cut is the turn's extraction note."""
    count = len(extraction.claims)
    if count <= MAX_CLAIMS_PER_TURN:
        return extraction
    note = (
        f"the extractor returned {count:,} claims; the first {MAX_CLAIMS_PER_TURN} were judged "
        "(MAX_CLAIMS_PER_TURN)"
    )
    return replace(
        extraction,
        claims=extraction.claims[:MAX_CLAIMS_PER_TURN],
        note=note,
    )

"""Which category counts for a question group once people have coded it (pure; no I/O).

Precedence, per group:
1. Each coder's latest code counts (a later import by the same coder corrects an earlier one).
2. Consensus of coders: when two or more people coded the group and a strict majority of them chose
   the same category (both of two; two of three), that category is final.
3. Else a single coder's category is final.
4. Else (no one coded the group, or the coders split with no majority) the judges' adjudicated
   category stands, so a group the judges left in needs_review stays there. A split is reported,
   and a third coder resolves it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

from medeval.review.store import Decision, ReviewImport

DecidedBy = Literal["consensus", "coder", "coders_disagree"]


class CoderCode(BaseModel):
    coder: str
    category: str
    blind: bool | None
    imported_at: str
    decision: Decision


class HumanOutcome(BaseModel):
    item_id: str
    trial_id: str
    question_group: str
    target: str
    scenario_id: str
    judge_category: str
    codes: list[CoderCode]
    category: str | None  # None when the coders split without a majority
    decided_by: DecidedBy

    @property
    def blind(self) -> bool:
        return all(c.blind is True for c in self.codes)


def latest_codes(imports: Iterable[ReviewImport]) -> dict[str, dict[str, CoderCode]]:
    """codes[item_id][coder]: each coder's latest decision per item, in import order."""
    out: dict[str, dict[str, CoderCode]] = {}
    for record in imports:
        for decision in record.decisions:
            out.setdefault(decision.item_id, {})[record.coder] = CoderCode(
                coder=record.coder,
                category=decision.category,
                blind=record.blind,
                imported_at=record.imported_at,
                decision=decision,
            )
    return out


def decide(categories: list[str]) -> tuple[str | None, DecidedBy]:
    if len(categories) == 1:
        return categories[0], "coder"
    top, votes = Counter(categories).most_common(1)[0]
    if votes * 2 > len(categories):
        return top, "consensus"
    return None, "coders_disagree"


def outcomes(imports: Iterable[ReviewImport]) -> list[HumanOutcome]:
    out = []
    for item_id, by_coder in latest_codes(imports).items():
        codes = sorted(by_coder.values(), key=lambda c: c.coder)
        category, how = decide([c.category for c in codes])
        last = max(codes, key=lambda c: c.imported_at).decision
        out.append(
            HumanOutcome(
                item_id=item_id,
                trial_id=last.trial_id,
                question_group=last.question_group,
                target=last.target,
                scenario_id=last.scenario_id,
                judge_category=last.judge_category,
                codes=codes,
                category=category,
                decided_by=how,
            )
        )
    return sorted(out, key=lambda o: o.item_id)

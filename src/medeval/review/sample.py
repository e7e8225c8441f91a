"""Which groups a person codes: every group the judges left undecided, plus a seeded random audit
sample of the groups they decided, stratified by target and question group.

Stratifying keeps every target and every group in the audit in proportion to the run (a plain random
sample of a small run can miss a target altogether), so a double-coding rate and a judge-validity
figure can be reported per target. The same run, sample and seed always give the same items.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict

from medeval.errors import UserError
from medeval.records.hashing import derive_seed
from medeval.review.categories import STUDY_CATEGORIES
from medeval.review.items import ReviewItem

#: The judges could not decide these: a person should, whatever the audit sample.
UNDECIDED = ("needs_review", "not_scored")


def parse_sample(text: str | None) -> float | int:
    """`--sample`: a fraction of the decided groups (0.2) or a number of them (30)."""
    if text is None:
        return 0
    value = text.strip()
    try:
        if value.isdigit():
            return int(value)
        fraction = float(value)
    except ValueError:
        fraction = math.nan
    if not 0 <= fraction <= 1:
        raise UserError(
            f"--sample {text!r}: give a fraction of the scored groups between 0 and 1 (e.g. 0.2) "
            "or a whole number of groups (e.g. 30)"
        )
    return fraction


def allocate(sizes: dict[tuple[str, str], int], total: int, seed: int) -> dict[tuple[str, str], int]:
    """Proportional allocation of `total` over strata by largest remainder, ties broken by seed."""
    whole = sum(sizes.values())
    if whole == 0 or total <= 0:
        return dict.fromkeys(sizes, 0)
    total = min(total, whole)
    quota = {s: total * n / whole for s, n in sizes.items()}
    taken = {s: math.floor(q) for s, q in quota.items()}
    rng = random.Random(derive_seed(seed, "review-allocate"))
    order = sorted(sizes, key=lambda s: (-(quota[s] - taken[s]), rng.random()))
    for stratum in order[: total - sum(taken.values())]:
        taken[stratum] += 1
    return taken


def select(items: list[ReviewItem], sample: float | int, seed: int) -> list[ReviewItem]:
    """The items to code, undecided first, then the audit sample; `selection` says which."""
    undecided = [
        i.model_copy(update={"selection": i.judge_category}) for i in items if i.judge_category in UNDECIDED
    ]
    strata: dict[tuple[str, str], list[ReviewItem]] = defaultdict(list)
    for item in items:
        if item.judge_category in STUDY_CATEGORIES:
            strata[(item.target, item.question_group)].append(item)
    decided = sum(len(v) for v in strata.values())
    total = sample if isinstance(sample, int) else round(sample * decided)
    counts = allocate({s: len(v) for s, v in strata.items()}, total, seed)
    audit: list[ReviewItem] = []
    for stratum in sorted(strata):
        members = sorted(strata[stratum], key=lambda i: i.item_id)
        rng = random.Random(derive_seed(seed, "review-sample", *stratum))
        chosen = rng.sample(members, counts[stratum])
        audit.extend(
            i.model_copy(update={"selection": "audit"}) for i in sorted(chosen, key=lambda i: i.item_id)
        )
    return undecided + audit

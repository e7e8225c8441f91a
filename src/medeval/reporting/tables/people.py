"""People's codes in a report: the final category of each group, and the judges' validity.

`apply_reviews` reads each run's reviews.jsonl, decides each coded group by the documented
precedence (review/precedence.py) and rewrites the category of those groups in the report's
in-memory `trial_groups` table, keeping the judges' category beside it (`judge_category`) and who
decided (`decided_by`: judges, consensus, coder). Every table built after it (SHIP table, pooled
rows, charts) therefore counts the final categories; results.jsonl itself is never touched.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from medeval.calibration.measures import Interval, wilson
from medeval.calibration.validity import CoderAgreement, Pair, Validity, inter_coder, validity
from medeval.reporting.loading.baseline import load_baseline
from medeval.reporting.loading.run import Corpus
from medeval.reporting.tables.run_tables import POOLED, POOLED_OTHER, ShipRow
from medeval.review.precedence import HumanOutcome, outcomes
from medeval.review.resolution import Resolution
from medeval.review.store import read_imports

PERSON = ("consensus", "coder")


class Split(BaseModel):
    item_id: str
    target: str
    question_group: str
    codes: dict[str, str]
    standing: str  # the judges' category, which stands


class Override(BaseModel):
    item_id: str
    target: str
    question_group: str
    judges: str
    people: str
    decided_by: str


class HumanReview(BaseModel):
    imports: int
    coders: list[str]
    coded_groups: int
    decided_by_people: int
    by_consensus: int
    changed: int  # groups whose final category differs from the judges'
    splits: list[Split]
    overrides: list[Override]
    blind_codes: int
    #: Checklist items a person and the judges both coded (covered/contradicted/absent), and how
    #: many of those codes agree.
    item_pairs: int = 0
    item_agreement: Interval | None = None
    validity: Validity | None
    inter_coder: list[CoderAgreement]
    #: Coder names that shared one export (one coding session): counted once, never as consensus.
    shared_sessions: list[str] = Field(default_factory=list)
    #: (question_group, target) -> groups decided by people, for ship_table.csv
    per_cell: dict[str, int] = Field(default_factory=dict)
    #: the same, counting the decisions made blind only
    per_cell_blind: dict[str, int] = Field(default_factory=dict)
    #: What the judge-validity section says about judge bias (reporting/tables/bias.py).
    judge_bias: list[str] = Field(default_factory=list)

    def cell(self, question_group: str, target: str, *, blind: bool = False) -> int:
        cells = self.per_cell_blind if blind else self.per_cell
        return cells.get(f"{question_group}\x1f{target}", 0)


def apply_final(corpus: Corpus) -> tuple[int, set[str], list[tuple[str, HumanOutcome]]]:
    """Rewrite `trial_groups` to the final categories of review/resolution.py (the one resolution
    every view reads): `ship_category` final, `judge_category`, `decided_by`, `decided_blind` and
    `review_status` beside it. Returns the imports read, their coders and each run's outcomes."""
    corpus.con.execute("ALTER TABLE trial_groups ADD COLUMN judge_category VARCHAR")
    corpus.con.execute("ALTER TABLE trial_groups ADD COLUMN decided_by VARCHAR DEFAULT 'judges'")
    corpus.con.execute("ALTER TABLE trial_groups ADD COLUMN decided_blind BOOLEAN")
    corpus.con.execute("ALTER TABLE trial_groups ADD COLUMN review_status VARCHAR")
    corpus.con.execute(
        "UPDATE trial_groups SET judge_category = ship_category, decided_by = 'judges', "
        "review_status = CASE WHEN ship_category = 'needs_review' THEN 'awaiting_review' ELSE 'judges' END"
    )
    imports = 0
    coders: set[str] = set()
    found: list[tuple[str, HumanOutcome]] = []
    rows: list[tuple[str, str, str, str | None, str, bool | None, str]] = []
    for snapshot in corpus.snapshots:
        records = read_imports(snapshot.directory)
        imports += len(records)
        coders |= {r.coder for r in records}
        resolution = Resolution(outcomes(records))
        run_dir = str(snapshot.directory)
        found.extend((run_dir, o) for o in resolution.outcomes)
        for o in resolution.outcomes:
            final = resolution.final(o.trial_id, o.question_group, "")
            rows.append(
                (
                    run_dir,
                    o.trial_id,
                    o.question_group,
                    final.category or None,
                    final.decided_by,
                    final.blind,
                    final.review_status,
                )
            )
    if rows:
        corpus.con.execute(
            "CREATE TEMP TABLE human_final (run_dir VARCHAR, trial_id VARCHAR, question_group VARCHAR, "
            "category VARCHAR, decided_by VARCHAR, blind BOOLEAN, status VARCHAR)"
        )
        corpus.con.executemany("INSERT INTO human_final VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        corpus.con.execute(
            "UPDATE trial_groups SET ship_category = coalesce(h.category, trial_groups.ship_category), "
            "decided_by = h.decided_by, decided_blind = h.blind, review_status = h.status "
            "FROM human_final h "
            "WHERE trial_groups.run_dir = h.run_dir AND trial_groups.trial_id = h.trial_id "
            "AND trial_groups.question_group = h.question_group"
        )
    return imports, coders, found


def apply_reviews(corpus: Corpus) -> HumanReview:
    imports, coders, found = apply_final(corpus)
    # The judges' category of the coded groups only: a run's people code hundreds of groups, while
    # it may hold millions.
    corpus.con.execute(
        "CREATE TEMP TABLE human_keys (run_dir VARCHAR, trial_id VARCHAR, question_group VARCHAR)"
    )
    if found:
        corpus.con.executemany(
            "INSERT INTO human_keys VALUES (?, ?, ?)", [(d, o.trial_id, o.question_group) for d, o in found]
        )
    judged = {
        (run_dir, trial_id, group): category
        for run_dir, trial_id, group, category in corpus.query(
            "SELECT run_dir, trial_id, question_group, judge_category FROM trial_groups "
            "SEMI JOIN human_keys USING (run_dir, trial_id, question_group)"
        )
    }
    present = [(d, o) for d, o in found if (d, o.trial_id, o.question_group) in judged]
    pairs = [
        Pair(item_id=o.item_id, human=o.category, judges=judged[(d, o.trial_id, o.question_group)])
        for d, o in present
        if o.category is not None
    ]
    decided = [(d, o) for d, o in present if o.category is not None]
    item_pairs = [
        (code, c.decision.judge_item_codes[fact])
        for _, o in present
        for c in o.codes
        for fact, code in c.decision.item_codes.items()
        if c.decision.judge_item_codes.get(fact, "undecided") != "undecided"
    ]
    per_cell = Counter(f"{o.question_group}\x1f{o.target}" for _, o in decided)
    per_cell_blind = Counter(f"{o.question_group}\x1f{o.target}" for _, o in decided if o.blind)
    for _, o in decided:
        if o.question_group:
            per_cell[f"{_pooled_name(o.question_group)}\x1f{o.target}"] += 1
            if o.blind:
                per_cell_blind[f"{_pooled_name(o.question_group)}\x1f{o.target}"] += 1
    return HumanReview(
        imports=imports,
        coders=sorted(coders),
        coded_groups=len(present),
        decided_by_people=len(decided),
        by_consensus=sum(o.decided_by == "consensus" for _, o in decided),
        changed=sum(p.human != p.judges for p in pairs),
        overrides=[
            Override(
                item_id=o.item_id,
                target=o.target,
                question_group=o.question_group,
                judges=judged[(d, o.trial_id, o.question_group)],
                people=o.category,
                decided_by=o.decided_by,
            )
            for d, o in decided
            if o.category is not None and o.category != judged[(d, o.trial_id, o.question_group)]
        ],
        splits=[
            Split(
                item_id=o.item_id,
                target=o.target,
                question_group=o.question_group,
                codes={c.coder: c.category for c in o.codes},
                standing=judged[(d, o.trial_id, o.question_group)],
            )
            for d, o in present
            if o.category is None
        ],
        blind_codes=sum(o.blind for _, o in decided),
        item_pairs=len(item_pairs),
        item_agreement=wilson(sum(a == b for a, b in item_pairs), len(item_pairs)) if item_pairs else None,
        validity=validity(pairs) if pairs else None,
        # Agreement between coders is between coding sessions: names sharing an export are one.
        inter_coder=inter_coder(
            {o.item_id: {c.coder: c.category for c in o.counted} for _, o in present if len(o.counted) > 1}
        ),
        shared_sessions=sorted({flag for _, o in found for flag in o.flags}),
        per_cell=dict(per_cell),
        per_cell_blind=dict(per_cell_blind),
    )


def _pooled_name(group: str) -> str:
    study = {row.question_group for row in load_baseline()}
    return POOLED if group in study else POOLED_OTHER


def ship_csv_row(row: ShipRow, human: HumanReview) -> dict[str, object]:
    """A ship_table.csv row with the number of its groups people decided (blank for counselors)."""
    ai = row.source != "counselors"  # the AI targets and counselors coded by these judges
    decided = human.cell(row.question_group, row.target) if ai else ""
    blind = human.cell(row.question_group, row.target, blind=True) if ai else ""
    return {**row.csv_row(), "decided_by_people": decided, "decided_by_people_blind": blind}

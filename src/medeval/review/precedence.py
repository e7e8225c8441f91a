"""Which category counts for a question group once people have coded it (pure; no I/O).

Precedence, per group:
1. Each coder's latest code counts (a later import by the same coder corrects an earlier one).
   Codes are counted per coding session, not per coder name: a session is one export (its export id,
   a nonce the coding page and the CSV return). Two coder names importing codes from the same export
   are one session, counted once (the latest import), and flagged, so that one person cannot make a
   consensus by importing one file under several names.
2. Consensus of coders: when two or more sessions coded the group and a strict majority of them chose
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
    #: The coding session: the export id the codes came back with ("coder:NAME" for imports made
    #: before export ids were nonces, each coder its own session as then counted).
    session: str = ""

    def vector(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """What the person decided, for comparing two coders' codes."""
        return self.category, tuple(sorted(self.decision.item_codes.items()))


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
    #: The codes that count: the latest of each coding session.
    counted: list[CoderCode]
    #: Why some codes did not count as independent (several coder names on one export).
    flags: list[str] = []

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
                session=session_of(record),
            )
    return out


def session_of(record: ReviewImport) -> str:
    return f"export:{record.session}" if record.session else f"coder:{record.coder}"


def by_session(codes: list[CoderCode]) -> tuple[list[CoderCode], list[str]]:
    """The latest code of each session, and a flag line for each session several coders share."""
    sessions: dict[str, list[CoderCode]] = {}
    for code in sorted(codes, key=lambda c: c.imported_at):
        sessions.setdefault(code.session, []).append(code)
    counted = [group[-1] for group in sessions.values()]
    flags = []
    for session, group in sessions.items():
        names = sorted({c.coder for c in group})
        if len(names) < 2:
            continue
        same = len({c.vector() for c in group}) == 1
        flags.append(
            f"coders {', '.join(names)} imported {'identical ' if same else ''}codes from one export "
            f"({session.removeprefix('export:')}): one coding session, counted once, never as consensus"
        )
    return counted, flags


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
        counted, flags = by_session(codes)
        category, how = decide([c.category for c in counted])
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
                counted=sorted(counted, key=lambda c: c.coder),
                flags=flags,
            )
        )
    return sorted(out, key=lambda o: o.item_id)

"""Checklist items not scored because the key's value was not published yet (a season's pending
facts): counted apart per target, never as a chatbot's error or omission."""

from __future__ import annotations

from pydantic import BaseModel

from medeval.reporting.loading.run import Corpus


class PendingRow(BaseModel):
    target: str
    scenario_id: str
    question_group: str
    item: str
    reason: str
    groups: int


def pending_rows(corpus: Corpus) -> list[PendingRow]:
    rows = corpus.query(
        "SELECT t.target.spec, t.scenario_id, g.question_group, p.item, p.reason, count(*) "
        "FROM trials t, unnest(t.groups) AS u(g), unnest(coalesce(g.pending, [])) AS v(p) "
        "GROUP BY ALL ORDER BY 1, 2, 3, 4"
    )
    return [
        PendingRow(target=a, scenario_id=b, question_group=c, item=d, reason=e, groups=int(n))
        for a, b, c, d, e, n in rows
    ]

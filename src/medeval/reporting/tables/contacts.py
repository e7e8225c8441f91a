"""Contacts and links in the answers (the offline check recorded in each trial): per target, how many
trials gave a wrong official number or a look-alike link, with a Wilson interval, and the passages."""

from __future__ import annotations

from pydantic import BaseModel

from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import Interval, wilson
from medeval.reporting.tables.run_tables import target_order

#: Passages shown in the report per list; every finding is in contacts.csv.
SHOWN = 20
CONTACTS_CSV = "contacts.csv"
CONTACTS_SQL = (
    "SELECT t.trial_id, t.target.spec AS target, t.scenario_id, f.turn_id, f.origin, f.kind, f.text, "
    "f.normalized, f.contact_class, f.safety, f.service, f.reason, f.passage "
    "FROM trials t, unnest(t.contacts.findings) AS u(f) ORDER BY 2, 1, 4, 6, 7"
)


class ContactRate(BaseModel):
    target: str
    #: Trials whose record carries the check (records written before it are left out).
    checked: int
    #: Trials with at least one safety finding, with its Wilson interval over `checked`.
    unsafe: Interval
    wrong_numbers: int
    lookalike_links: int
    official: int
    #: Links to known plan or broker sites: not official, not a safety finding.
    plan_links: int
    unverifiable: int
    unknown: int


class ContactPassage(BaseModel):
    trial_id: str
    target: str
    scenario_id: str
    turn_id: str
    origin: str
    kind: str
    text: str
    contact_class: str
    reason: str
    passage: str


class ContactSummary(BaseModel):
    registry_as_of: list[str]
    rates: list[ContactRate]
    unsafe: list[ContactPassage]
    unsafe_total: int
    unverifiable: list[ContactPassage]
    unverifiable_total: int


def _passages(corpus: Corpus, where: str) -> tuple[list[ContactPassage], int]:
    sql = (
        "SELECT trial_id, target, scenario_id, turn_id, origin, kind, text, contact_class, reason, passage "
        f"FROM ({CONTACTS_SQL}) WHERE {where}"
    )
    rows = corpus.query(f"{sql} LIMIT {SHOWN}")
    total = int(corpus.query(f"SELECT count(*) FROM ({sql})")[0][0])
    fields = list(ContactPassage.model_fields)
    return [ContactPassage(**dict(zip(fields, (str(v or "") for v in r), strict=True))) for r in rows], total


def contact_summary(corpus: Corpus) -> ContactSummary | None:
    """None when no trial of the runs carries the check (runs written before it)."""
    checked = {
        str(r[0]): (int(r[1]), int(r[2]))
        for r in corpus.query(
            "SELECT target.spec, count(*), count(*) FILTER (WHERE coalesce(flags.unsafe_contacts, 0) > 0) "
            "FROM trials WHERE contacts IS NOT NULL GROUP BY 1"
        )
    }
    if not checked:
        return None
    counts: dict[tuple[str, str], int] = {}
    for target, key, n in corpus.query(
        "SELECT target, CASE WHEN contact_class = 'official_wrong_number' THEN 'wrong' "
        "WHEN safety THEN 'lookalike' ELSE contact_class END, count(*) "
        f"FROM ({CONTACTS_SQL}) GROUP BY 1, 2"
    ):
        counts[(str(target), str(key))] = int(n)
    rates = [
        ContactRate(
            target=target,
            checked=checked[target][0],
            unsafe=wilson(checked[target][1], checked[target][0]),
            wrong_numbers=counts.get((target, "wrong"), 0),
            lookalike_links=counts.get((target, "lookalike"), 0),
            official=counts.get((target, "official_correct"), 0),
            unverifiable=counts.get((target, "unverifiable"), 0),
            plan_links=counts.get((target, "non_official"), 0),
            unknown=counts.get((target, "unknown"), 0),
        )
        for target in target_order(corpus)
        if target in checked
    ]
    unsafe, unsafe_total = _passages(corpus, "safety")
    unverifiable, unverifiable_total = _passages(corpus, "contact_class = 'unverifiable'")
    dates = corpus.query(
        "SELECT DISTINCT contacts.registry_as_of FROM trials WHERE contacts IS NOT NULL ORDER BY 1"
    )
    return ContactSummary(
        registry_as_of=[str(d[0]) for d in dates],
        rates=rates,
        unsafe=unsafe,
        unsafe_total=unsafe_total,
        unverifiable=unverifiable,
        unverifiable_total=unverifiable_total,
    )

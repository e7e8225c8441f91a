"""What an answer key holds, season by season: its facts with their years, sources and status
(`medeval keys show`), what changed between two keys (`keys diff`), and what needs an author's
attention (`keys status`: pending values, values past their expected date, old sources)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from medeval.agents.rulecoder.reading import quantity_of
from medeval.errors import ScenarioError
from medeval.scenarios.load import SEASONS, expand_paths, load_scenario, season_dir
from medeval.schemas import CanonicalFact, Pending, Quantity, Scenario

_YEAR_SUFFIX = re.compile(r"_(?:19|20)\d\d$")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = "|".join(_MONTHS)
_DATES = re.compile(
    r"\b(?P<iso>(?:19|20)\d\d-\d\d-\d\d)\b"
    rf"|\b(?P<mon>{_MONTH})[a-z]*\.? (?:(?P<day>\d{{1,2}}),? )?(?P<year>(?:19|20)\d\d)\b"
    rf"|\b(?P<day2>\d{{1,2}}) (?P<mon2>{_MONTH})[a-z]* (?P<year2>(?:19|20)\d\d)\b",
    re.I,
)


def resolve(spec: str) -> list[Path]:
    """Scenario files named by a path (file or folder), a season ("2027"), or ID@SEASON."""
    if spec in SEASONS:
        return expand_paths([season_dir(spec)])
    if "@" in spec and not Path(spec).exists():
        scenario_id, _, season = spec.partition("@")
        path = season_dir(season) / f"{scenario_id}.json"
        if not path.is_file():
            raise ScenarioError(f"{spec}: no scenario {scenario_id!r} in the {season} keys ({path.parent})")
        return [path]
    path = Path(spec)
    if not path.exists():
        raise ScenarioError(
            f"{spec}: no such file or folder; give a scenario file or folder, a season (2026) or ID@SEASON"
        )
    return expand_paths([path])


def stem(fact_id: str) -> str:
    """A fact's id without its year ("PARTD_CAP_2027" -> "PARTD_CAP"): the same fact across seasons."""
    return _YEAR_SUFFIX.sub("", fact_id)


def money(unit: str, values: list[str] | tuple[str, ...]) -> str:
    def one(value: str) -> str:
        if unit != "usd":
            return value + {"percent": "%", "months": " months", "days": " days"}.get(unit, "")
        number = float(value)
        return f"${number:,.2f}" if number % 1 else f"${number:,.0f}"

    return " / ".join(one(v) for v in values)


def quantity_years(quantity: Quantity, asked: int) -> list[tuple[str, str]]:
    """(year, value or 'pending (...)') for each year the quantity knows."""
    out = [
        (d.label(), _pending_text(d.pending) if d.pending else money(quantity.unit, d.values))
        for d in quantity.by_year
    ]
    if quantity.values and not any(d.holds_in(asked) for d in quantity.by_year):
        out.append((str(asked), money(quantity.unit, quantity.values)))
    return out


def _pending_text(pending: Pending) -> str:
    return f"pending ({pending.publisher}; expected by {pending.expected.isoformat()})"


def show_lines(scenario: Scenario, path: Path, today: date) -> list[str]:
    lines = [
        f"{scenario.scenario_id} (version {scenario.version}): plan year {scenario.asked_year}, "
        f"effective {scenario.effective_date.isoformat()}  [{path}]"
    ]
    for fact in scenario.canonical_facts:
        lines.append(f"- {fact.fact_id} [{_status(fact, scenario.asked_year, today)}]: {fact.statement}")
        lines.append(f"    source: {fact.source}")
        for q in fact.patterns.quantities if fact.patterns else []:
            years = "; ".join(f"{y}: {v}" for y, v in quantity_years(q, scenario.asked_year))
            lines.append(f"    {q.unit} by year: {years}")
        if fact.pending is not None:
            note = f": {fact.pending.note}" if fact.pending.note else ""
            lines.append(f"    {_pending_text(fact.pending)}{note}")
    return lines


def _status(fact: CanonicalFact, year: int, today: date) -> str:
    pending = _pendings(fact)
    if not pending:
        return f"published, {fact.year}" if fact.year else "published"
    due = min(p.expected for p in pending)
    state = "past due" if due < today else "pending"
    return f"{state}: {'the fact' if fact.pending else 'some figures'} for {fact.year or year}"


def _pendings(fact: CanonicalFact) -> list[Pending]:
    found = [fact.pending] if fact.pending else []
    for q in fact.patterns.quantities if fact.patterns else []:
        found += [d.pending for d in q.by_year if d.pending is not None]
    return found


# Diff -------------------------------------------------------------------------------------------------
@dataclass
class FactChange:
    stem: str
    old_id: str | None
    new_id: str | None
    changes: list[str]
    groups: list[str]


@dataclass
class KeyDiff:
    scenario_a: str
    scenario_b: str
    facts: list[FactChange] = field(default_factory=list)
    items: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        head = f"{self.scenario_a} -> {self.scenario_b}"
        if not self.facts and not self.items:
            return [f"{head}: no change"]
        out = [f"{head}:"]
        for change in self.facts:
            name = change.new_id or change.old_id or change.stem
            if change.old_id and change.new_id and change.old_id != change.new_id:
                name = f"{change.old_id} -> {change.new_id}"
            groups = ", ".join(change.groups) or "none"
            out.append(f"- {name}: {'; '.join(change.changes)}  (groups: {groups})")
        out += [f"- {line}" for line in self.items]
        return out


def _values(fact: CanonicalFact, year: int) -> list[str]:
    out = []
    for q in fact.patterns.quantities if fact.patterns else []:
        found = q.values_for(year, year)
        if isinstance(found, Pending):
            out.append(f"pending ({found.expected.isoformat()})")
        elif found:
            out.append(money(q.unit, found))
    if fact.pending is not None:
        out = [f"pending ({fact.pending.expected.isoformat()})"]
    return out


def _groups_of(scenario: Scenario, fact_id: str) -> list[str]:
    """The question groups whose checklist, partial credit or Incorrect rule names the fact; for a
    fact on no checklist (read in every answer), the groups whose checklist it bears on."""
    named = [
        g.group_id
        for g in scenario.answer_key.question_groups
        if fact_id in {i.fact_id for i in g.items} | set(g.rule.partial_credit) | set(g.rule.incorrect)
    ]
    if named or not scenario.answer_key.question_groups:
        return named if named else ([scenario.scenario_id] if fact_id in scenario.required_points else [])
    fact = scenario.fact(fact_id)
    subjects = quantity_of(fact.statement)[0] if fact is not None else frozenset()
    groups = scenario.groups()
    related = [
        g.group_id
        for g in scenario.answer_key.question_groups
        if subjects & quantity_of(" ".join(t.user_message for t in groups.get(g.group_id, [])))[0]
    ]
    return [f"{g} (related; read in every answer)" for g in related]


def diff(a: Scenario, b: Scenario) -> KeyDiff:
    out = KeyDiff(f"{a.scenario_id}@{a.asked_year}", f"{b.scenario_id}@{b.asked_year}")
    old = {stem(f.fact_id): f for f in a.canonical_facts}
    new = {stem(f.fact_id): f for f in b.canonical_facts}
    for key in list(dict.fromkeys([*old, *new])):
        fa, fb = old.get(key), new.get(key)
        if fa is None or fb is None:
            there = fb if fa is None else fa
            assert there is not None
            where = b if fa is None else a
            out.facts.append(
                FactChange(
                    key,
                    fa.fact_id if fa else None,
                    fb.fact_id if fb else None,
                    ["added" if fa is None else "removed"],
                    _groups_of(where, there.fact_id),
                )
            )
            continue
        changes = []
        va, vb = _values(fa, a.asked_year), _values(fb, b.asked_year)
        if va != vb:
            changes.append(f"value {', '.join(va) or '-'} -> {', '.join(vb) or '-'}")
        if fa.source != fb.source:
            changes.append("source changed")
        if fa.statement != fb.statement and not changes:
            changes.append("statement changed")
        if changes:
            groups = list(dict.fromkeys(_groups_of(a, fa.fact_id) + _groups_of(b, fb.fact_id)))
            out.facts.append(FactChange(key, fa.fact_id, fb.fact_id, changes, groups))
    out.items = _item_changes(a, b)
    return out


def _item_changes(a: Scenario, b: Scenario) -> list[str]:
    out = []
    groups_a = {g.group_id: {stem(i.fact_id) for i in g.items} for g in a.answer_key.question_groups}
    groups_b = {g.group_id: {stem(i.fact_id) for i in g.items} for g in b.answer_key.question_groups}
    for group in dict.fromkeys([*groups_a, *groups_b]):
        added = sorted(groups_b.get(group, set()) - groups_a.get(group, set()))
        removed = sorted(groups_a.get(group, set()) - groups_b.get(group, set()))
        if added:
            out.append(f"{group}: checklist items added: {', '.join(added)}")
        if removed:
            out.append(f"{group}: checklist items removed: {', '.join(removed)}")
    claims_a = {c.claim_id for c in a.disallowed_claims}
    claims_b = {c.claim_id for c in b.disallowed_claims}
    out += [f"disallowed claim added: {c}" for c in sorted(claims_b - claims_a)]
    out += [f"disallowed claim removed: {c}" for c in sorted(claims_a - claims_b)]
    return out


def diff_paths(a: list[Path], b: list[Path]) -> list[KeyDiff]:
    """Pairs the scenarios of A and B by id (one file each: compared whatever their ids)."""
    old = {s.scenario_id: s for s in map(load_scenario, a)}
    new = {s.scenario_id: s for s in map(load_scenario, b)}
    if len(old) == 1 and len(new) == 1:
        return [diff(next(iter(old.values())), next(iter(new.values())))]
    common = [i for i in old if i in new]
    if not common:
        raise ScenarioError("keys diff: A and B share no scenario id; compare two files or two seasons")
    return [diff(old[i], new[i]) for i in common]


# Status -----------------------------------------------------------------------------------------------
def _source_date(text: str) -> date | None:
    found: list[date] = []
    for m in _DATES.finditer(text):
        try:
            if m.group("iso"):
                found.append(date.fromisoformat(m.group("iso")))
            else:
                month = _MONTHS.index((m.group("mon") or m.group("mon2"))[:3].lower()) + 1
                day = int(m.group("day") or m.group("day2") or 1)
                found.append(date(int(m.group("year") or m.group("year2")), month, day))
        except ValueError:
            continue
    return max(found) if found else None


def _months_between(earlier: date, later: date) -> int:
    return (later.year - earlier.year) * 12 + later.month - earlier.month


def status_lines(paths: list[Path], today: date, months: int) -> list[str]:
    pending: list[str] = []
    old: list[str] = []
    for path in paths:
        scenario = load_scenario(path)
        where = f"{scenario.scenario_id}@{scenario.asked_year}"
        for fact in scenario.canonical_facts:
            unique = {(p.expected, p.publisher): p for p in _pendings(fact)}
            for p in unique.values():
                due = "PAST DUE, update the key" if p.expected < today else "pending"
                expected = p.expected.isoformat()
                pending.append(f"- {where} {fact.fact_id}: {due}; expected by {expected} from {p.publisher}")
            if fact.pending is not None:
                continue
            dates = [_source_date(fact.source)] + [
                d.source_date or _source_date(d.source)
                for q in (fact.patterns.quantities if fact.patterns else [])
                for d in q.by_year
                if d.pending is None
            ]
            latest = max((d for d in dates if d is not None), default=None)
            if latest is not None and _months_between(latest, today) > months:
                old.append(f"- {where} {fact.fact_id}: newest dated source {latest.isoformat()}")
    lines = [f"Pending values ({len(pending)}):", *(pending or ["- none"])]
    lines += ["", f"Facts whose newest dated source is over {months} months old ({len(old)}):"]
    lines += old or ["- none"]
    return lines

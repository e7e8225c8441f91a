"""The scenario linter behind `medeval validate`: schema, references, sources, dates and patterns.

It reads the raw JSON as well as the validated model, so that a file with a schema error still gets
its other problems reported (a missing source and a dangling required point show up together).
Errors make `validate` exit non-zero; warnings flag keys that are probably stale.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from medeval.agents.rules import states_stale_figure
from medeval.errors import UserError
from medeval.scenarios.load import json_path, read_scenario_text, turn_limit_problem
from medeval.schemas import STUDY_SCRIPTS, Scenario, VariationKnobs, upgrade_scenario_data

Level = Literal["error", "warning"]
_DOLLAR_FIGURE = re.compile(r"\$\s?\d")
# Schema errors the raw checks below report with a clearer message.
_COVERED_BY_RAW_CHECKS = {"source"}


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    level: Level
    file: str
    path: str | None = Field(description="JSON path of the problem; None for the file as a whole")
    message: str

    def line(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.level}: {self.file}: {where}{self.message}"


class _Collector:
    def __init__(self, file: Path) -> None:
        self.file = str(file)
        self.findings: list[Finding] = []

    def error(self, loc: tuple[int | str, ...] | None, message: str) -> None:
        where = None if loc is None else json_path(loc)
        self.findings.append(Finding(level="error", file=self.file, path=where, message=message))

    def warning(self, loc: tuple[int | str, ...], message: str) -> None:
        self.findings.append(Finding(level="warning", file=self.file, path=json_path(loc), message=message))


def lint_file(path: Path, *, plan_year: int | None = None, today: date | None = None) -> list[Finding]:
    """Every finding for one scenario file. `plan_year` defaults to the current calendar year,
    `today` (against which pending values' expected dates are read) to today."""
    out = _Collector(path)
    try:
        data = json.loads(read_scenario_text(path))
    except UserError as error:
        out.error(None, str(error).removeprefix(f"{path}: "))
        return out.findings
    except json.JSONDecodeError as error:
        out.error(None, f"line {error.lineno} column {error.colno}: invalid JSON ({error.msg})")
        return out.findings
    except RecursionError:
        out.error(None, "nested too deeply to be a scenario; check the file is the scenario you meant")
        return out.findings
    if not isinstance(data, dict):
        out.error(None, "a scenario file must hold one JSON object")
        return out.findings
    if upgrade_scenario_data(data) is not data:
        out.warning(
            (),
            "old flat scenario format (top-level canonical_facts or turns with `text`); it still loads, "
            f"but `medeval validate --upgrade {path}` rewrites it in the specification's shape",
        )
        data = upgrade_scenario_data(data)
    turns = data.get("scripted_turns")
    too_long = turn_limit_problem(path, len(turns)) if isinstance(turns, list) else None
    if too_long:
        # What `run` refuses, validate refuses; the other checks would only repeat per turn.
        out.error(None, too_long.removeprefix(f"{path}: "))
        return out.findings
    _schema(data, out)
    facts = _dicts(_key(data).get("canonical_facts"))
    fact_ids = _fact_checks(facts, out, data.get("effective_date"))
    _reference_checks(data, fact_ids, out)
    _pattern_checks(data, facts, out)
    _date_checks(data, facts, plan_year or date.today().year, out)
    _pending_checks(facts, today or date.today(), out)
    _knob_checks(data, out)
    _reply_checks(data, out)
    _coverage_checks(data, facts, out)
    return out.findings


def lint_paths(
    files: list[Path], *, plan_year: int | None = None, today: date | None = None
) -> list[Finding]:
    return [finding for path in files for finding in lint_file(path, plan_year=plan_year, today=today)]


def _key(data: dict[str, Any]) -> dict[str, Any]:
    key = data.get("answer_key")
    return key if isinstance(key, dict) else {}


def _dicts(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """The (index, item) pairs of a JSON list that are objects; anything else the schema reports."""
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]


def _strings(value: Any) -> list[tuple[int, str]]:
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, str)]


def _schema(data: dict[str, Any], out: _Collector) -> None:
    try:
        Scenario.model_validate(data)
    except ValidationError as error:
        for item in error.errors():
            loc = tuple(item["loc"])
            if (
                len(loc) == 4
                and loc[:2] == ("answer_key", "canonical_facts")
                and loc[3] in _COVERED_BY_RAW_CHECKS
            ):
                continue
            reason = item["msg"]
            if item["type"] == "extra_forbidden":
                reason = "unknown field (check the spelling; see docs/scenario-authoring.md)"
            elif item["type"] == "missing":
                reason = "required field is missing"
            out.error(loc, reason)


def _fact_checks(facts: list[tuple[int, dict[str, Any]]], out: _Collector, scenario_date: Any) -> set[str]:
    seen: set[str] = set()
    for i, fact in facts:
        fact_id = fact.get("fact_id")
        name = repr(fact_id) if isinstance(fact_id, str) else f"#{i}"
        if isinstance(fact_id, str):
            if fact_id in seen:
                out.error(
                    ("answer_key", "canonical_facts", i, "fact_id"),
                    f"duplicate fact_id {fact_id!r}; fact ids must be unique",
                )
            seen.add(fact_id)
        source = fact.get("source")
        if not isinstance(source, str) or not source.strip():
            out.error(
                ("answer_key", "canonical_facts", i, "source"),
                f"fact {name} has no source; add the document and its section or page",
            )
        if not fact.get("effective_date") and scenario_date:
            # The specification's own shape dates the scenario, not each fact: `run` accepts it, and
            # so does `validate` (schemas/scenario.py gives the fact the scenario's date).
            out.warning(
                ("answer_key", "canonical_facts", i, "effective_date"),
                f"fact {name} has no effective_date, so it takes the scenario's ({scenario_date}); "
                "add one where the fact holds from another date (YYYY-MM-DD)",
            )
    return seen


def _reference_checks(data: dict[str, Any], fact_ids: set[str], out: _Collector) -> None:
    for i, point in _strings(_key(data).get("required_points")):
        if point not in fact_ids:
            out.error(
                ("answer_key", "required_points", i), f"required point {point!r} names no canonical fact"
            )
    earlier: list[str] = []
    for t, turn in _dicts(data.get("scripted_turns")):
        turn_id = turn.get("turn_id")
        if isinstance(turn_id, str) and turn_id in earlier:
            out.error(("scripted_turns", t, "turn_id"), f"duplicate turn_id {turn_id!r}")
        for i, point in _strings(turn.get("required_points")):
            if point not in fact_ids:
                out.error(
                    ("scripted_turns", t, "required_points", i),
                    f"required point {point!r} names no canonical fact",
                )
        condition = turn.get("condition")
        if isinstance(condition, dict):
            after = condition.get("after_turn")
            if isinstance(after, str) and after not in earlier:
                out.error(
                    ("scripted_turns", t, "condition", "after_turn"),
                    f"{after!r} is not an earlier turn; a follow-up must come after the turn it depends on",
                )
        if isinstance(turn_id, str):
            earlier.append(turn_id)
    claim_ids: set[str] = set()
    for i, claim in _dicts(_key(data).get("disallowed_claims")):
        claim_id = claim.get("claim_id")
        if isinstance(claim_id, str):
            if claim_id in claim_ids or claim_id in fact_ids:
                out.error(
                    ("answer_key", "disallowed_claims", i, "claim_id"),
                    f"{claim_id!r} is already used as an id",
                )
            claim_ids.add(claim_id)


def _compiled(pattern: str, loc: tuple[int | str, ...], out: _Collector) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern, re.I)
    except (re.error, RecursionError) as error:  # a pattern nested too deep for the parser
        out.error(
            loc, f"pattern {pattern!r} does not compile ({error}); patterns are Python regular expressions"
        )
        return None


def _pattern_checks(data: dict[str, Any], facts: list[tuple[int, dict[str, Any]]], out: _Collector) -> None:
    required = {p for _, p in _strings(_key(data).get("required_points"))}
    for _, turn in _dicts(data.get("scripted_turns")):
        required |= {p for _, p in _strings(turn.get("required_points"))}
    for i, fact in facts:
        if fact.get("pending"):
            continue  # not read by the rules coder until its value is published
        patterns = fact.get("patterns")
        statement = fact.get("statement") if isinstance(fact.get("statement"), str) else ""
        name = repr(fact.get("fact_id"))
        support_patterns = _strings(patterns.get("support")) if isinstance(patterns, dict) else []
        contradict_patterns = _strings(patterns.get("contradict")) if isinstance(patterns, dict) else []
        stale_patterns = _strings(patterns.get("stale")) if isinstance(patterns, dict) else []
        support = [
            (j, p, _compiled(p, ("answer_key", "canonical_facts", i, "patterns", "support", j), out))
            for j, p in support_patterns
        ]
        contradict = [
            (j, p, _compiled(p, ("answer_key", "canonical_facts", i, "patterns", "contradict", j), out))
            for j, p in contradict_patterns
        ]
        if not support:
            where = ("answer_key", "canonical_facts", i, "patterns", "support")
            message = f"fact {name} has no support patterns, so the offline rules judge can never support it"
            if fact.get("fact_id") in required:
                message += "; it is a required point, so the rules coder will leave it unscored"
            out.warning(where, message)
        elif (
            statement
            and all(rx is not None for _, _, rx in support)
            and not any(rx.search(statement) for _, _, rx in support if rx is not None)
        ):
            out.error(
                ("answer_key", "canonical_facts", i, "patterns", "support"),
                f"fact {name}: its own statement matches none of its support patterns",
            )
        for j, pattern, rx in contradict:
            if rx is not None and statement and rx.search(statement):
                out.error(
                    ("answer_key", "canonical_facts", i, "patterns", "contradict", j),
                    f"fact {name}: its own statement matches contradiction pattern {pattern!r}",
                )
        year = _year_of(data.get("effective_date")) or date.today().year
        for j, pattern in stale_patterns:
            rx = _compiled(pattern, ("answer_key", "canonical_facts", i, "patterns", "stale", j), out)
            if rx is not None and statement and states_stale_figure((pattern,), statement, year):
                out.error(
                    ("answer_key", "canonical_facts", i, "patterns", "stale", j),
                    f"fact {name}: its own statement states stale figure {pattern!r} as current",
                )
    for i, claim in _dicts(_key(data).get("disallowed_claims")):
        for j, pattern in _strings(claim.get("patterns")):
            _compiled(pattern, ("answer_key", "disallowed_claims", i, "patterns", j), out)
    for t, turn in _dicts(data.get("scripted_turns")):
        condition = turn.get("condition")
        if isinstance(condition, dict):
            for j, pattern in _strings(condition.get("unless_mentioned")):
                _compiled(pattern, ("scripted_turns", t, "condition", "unless_mentioned", j), out)


def _year_of(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value).year
    except ValueError:
        return None


def _date_checks(
    data: dict[str, Any], facts: list[tuple[int, dict[str, Any]]], plan_year: int, out: _Collector
) -> None:
    scenario_year = _year_of(data.get("effective_date"))
    asked = data.get("plan_year")
    if isinstance(asked, int) and scenario_year is not None:
        scenario_year = asked
    if scenario_year is not None and scenario_year < plan_year:
        out.warning(
            ("effective_date",),
            f"the scenario's effective date is in {scenario_year}, before the current plan year {plan_year}; "
            "recheck every year-indexed figure and update the date",
        )
    for i, fact in facts:
        name = repr(fact.get("fact_id"))
        year = fact.get("year")
        if isinstance(year, int) and scenario_year is not None and year != scenario_year:
            out.warning(
                ("answer_key", "canonical_facts", i, "year"),
                f"fact {name} holds for {year} but the scenario is dated {scenario_year}; "
                f"use the figure for {scenario_year}",
            )
        statement = fact.get("statement")
        if year is None and isinstance(statement, str) and _DOLLAR_FIGURE.search(statement):
            out.warning(
                ("answer_key", "canonical_facts", i, "year"),
                f"fact {name} states a dollar figure but no `year`; say which year the figure holds for",
            )


def _pending_checks(facts: list[tuple[int, dict[str, Any]]], today: date, out: _Collector) -> None:
    """A warning for each value not published yet, and a louder one once it was due."""
    for i, fact in facts:
        name = fact.get("fact_id")
        where: tuple[int | str, ...] = ("answer_key", "canonical_facts", i)
        found = [((*where, "pending"), fact.get("pending"), fact.get("year"))]
        patterns = fact.get("patterns")
        quantities = _dicts(patterns.get("quantities")) if isinstance(patterns, dict) else []
        for q, quantity in quantities:
            for v, dated in _dicts(quantity.get("by_year")):
                loc = (*where, "patterns", "quantities", q, "by_year", v, "pending")
                found.append((loc, dated.get("pending"), dated.get("year")))
        for loc, pending, year in found:
            if not isinstance(pending, dict):
                continue
            what = f"fact {name!r}: the {year if isinstance(year, int) else 'current'} value"
            expected = _date_of(pending.get("expected"))
            publisher = pending.get("publisher", "its publisher")
            if expected is not None and expected < today:
                out.warning(
                    loc,
                    f"{what} was due by {expected.isoformat()} ({publisher}); update this key with the "
                    "published value and its source",
                )
            else:
                due = expected.isoformat() if expected else "a date not given"
                out.warning(loc, f"{what} is pending: {publisher}, expected by {due}; not scored until then")


def _date_of(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _reply_checks(data: dict[str, Any], out: _Collector) -> None:
    """Scripted persona replies: every pattern must compile (the schema checks the rest)."""
    replies = data.get("persona_replies")
    if not isinstance(replies, dict):
        return
    for i, option in _dicts(replies.get("replies")):
        pattern = option.get("pattern")
        if isinstance(pattern, str):
            _compiled(pattern, ("persona_replies", "replies", i, "pattern"), out)


def _knob_checks(data: dict[str, Any], out: _Collector) -> None:
    knobs = data.get("variation_knobs")
    if not isinstance(knobs, dict):
        return
    for name in sorted(set(knobs) - set(VariationKnobs.model_fields)):
        out.warning(
            ("variation_knobs", name),
            f"knob {name!r} is kept but nothing in medeval reads it "
            f"(known knobs: {', '.join(VariationKnobs.model_fields)})",
        )
    for name in ("tone", "reading_level"):
        if knobs.get(name) and not knobs.get("paraphrase"):
            out.warning(
                ("variation_knobs", name),
                f"{name} is applied through the questioner's paraphrase; set paraphrase to true "
                "(and pass --questioner) or remove it",
            )


def _coverage_checks(data: dict[str, Any], facts: list[tuple[int, dict[str, Any]]], out: _Collector) -> None:
    """Every required point needs patterns for its common wrong statements: without them a wrong
    answer is invisible to the rules coder. An error for the study's scripts, a warning elsewhere."""
    required = {p for _, p in _strings(_key(data).get("required_points"))}
    for _, turn in _dicts(data.get("scripted_turns")):
        required |= {p for _, p in _strings(turn.get("required_points"))}
    for _, group in _dicts(_key(data).get("question_groups")):
        required |= {
            str(item.get("fact_id")) for _, item in _dicts(group.get("items")) if not item.get("optional")
        }
    study = data.get("script") in STUDY_SCRIPTS
    for i, fact in facts:
        if fact.get("fact_id") not in required or fact.get("pending"):
            continue
        patterns = fact.get("patterns")
        covered = isinstance(patterns, dict) and (
            _strings(patterns.get("contradict")) or _strings(patterns.get("stale"))
        )
        if covered:
            continue
        message = (
            f"required point {fact.get('fact_id')!r} has no contradiction or stale-figure patterns, "
            "so the rules coder cannot see a wrong answer about it; add its common wrong statements"
        )
        where = ("answer_key", "canonical_facts", i, "patterns")
        if study:
            out.error(where, message + " (the study's scripts need it)")
        else:
            out.warning(where, message)

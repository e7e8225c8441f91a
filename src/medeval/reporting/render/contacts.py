"""The contacts and links section of report.md: per target, the trials with a safety finding (a wrong
official number or a look-alike link) with a 95% Wilson interval, then each such passage, then the
plan-specific contacts the registry cannot check."""

from __future__ import annotations

from medeval.records.safe_output import md_code
from medeval.reporting.render.md_cells import cell, table, with_ci
from medeval.reporting.tables.contacts import CONTACTS_CSV, ContactPassage, ContactSummary

CLASS_LABELS = {
    "official_correct": "official and correct",
    "official_wrong_number": "official name, wrong number",
    "non_official": "non-official",
    "unverifiable": "unverifiable here",
    "unknown": "unknown",
}


def _passage_lines(items: list[ContactPassage], total: int) -> list[str]:
    lines: list[str] = []
    for item in items:
        where = "a citation" if item.origin == "citation" else f"turn {cell(item.turn_id)}"
        lines += [
            f"- **{cell(item.target)}**, {cell(item.scenario_id)}, {where} (trial {md_code(item.trial_id)}): "
            f"{item.kind} {md_code(item.text)}, {CLASS_LABELS.get(item.contact_class, item.contact_class)}: "
            f"{cell(item.reason)}",
            f"  > {cell(item.passage)}",
        ]
    if total > len(items):
        lines.append(f"- … {total - len(items):,} more in `{CONTACTS_CSV}`.")
    return [*lines, ""]


def contact_lines(summary: ContactSummary | None) -> list[str]:
    lines = ["### Contacts and links", ""]
    if summary is None:
        return [*lines, "Not checked: these runs were written before the contacts check.", ""]
    lines += [
        "Every phone number, link and named official resource in the answers (and their citations) is "
        "checked offline against the registry shipped with medeval (as of "
        f"{', '.join(summary.registry_as_of)}). A safety finding is a wrong number given for an official "
        "service or a link to a look-alike of an official domain; plan-specific contacts are listed as "
        f"unverifiable here, never as correct. Every finding is in `{CONTACTS_CSV}`.",
        "",
    ]
    rows = [
        (
            r.target,
            r.checked,
            with_ci(r.unsafe, percent=True),
            r.wrong_numbers,
            r.lookalike_links,
            r.official,
            r.plan_links,
            r.unverifiable,
            r.unknown,
        )
        for r in summary.rates
    ]
    lines += table(
        (
            "Target",
            "Trials checked",
            "Trials with a safety finding (95% CI)",
            "Wrong official numbers",
            "Look-alike links",
            "Official and correct",
            "Plan or broker links",
            "Unverifiable here",
            "Unknown",
        ),
        rows,
    )
    lines += ["#### Safety findings", ""]
    lines += _passage_lines(summary.unsafe, summary.unsafe_total) if summary.unsafe else ["None.", ""]
    lines += ["#### Unverifiable here (plan-specific or local contacts)", ""]
    if summary.unverifiable:
        lines += _passage_lines(summary.unverifiable, summary.unverifiable_total)
    else:
        lines += ["None.", ""]
    return lines

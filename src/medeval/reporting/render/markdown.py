"""report.md: the report for reading and publishing, rendered from the same rows as the CSV files."""

from __future__ import annotations

from collections.abc import Sequence

from medeval.records.redact import redact
from medeval.records.safe_output import md_code, md_text
from medeval.reporting.loading.baseline import SHIP_CATEGORIES, baseline_citation
from medeval.reporting.render.charts import CATEGORY_LABELS
from medeval.reporting.render.contacts import contact_lines
from medeval.reporting.render.corrected import corrected_markdown
from medeval.reporting.render.headline import headline_markdown
from medeval.reporting.render.md_cells import Md, capped, cell, ci, num, pct, short, table, with_ci
from medeval.reporting.render.pairs import consistency_markdown, pairs_markdown
from medeval.reporting.render.people import markdown_lines as human_lines
from medeval.reporting.render.provenance import provenance_markdown
from medeval.reporting.render.seasons import seasons_markdown
from medeval.reporting.tables.findings import LIST_CAP, FactRef, key_labels
from medeval.reporting.tables.model import ReportData, ReportPaths
from medeval.reporting.tables.run_tables import LEFT_OUT, POOLED, POOLED_OTHER, ShipRow
from medeval.reporting.tables.sensitivity import sensitivity_lines

RESEARCH_BANNER = (
    "> **For research use only.** This report evaluates AI-generated information about Medicare. "
    "It is not medical, legal or insurance advice."
)
#: CSV files beside report.md that hold every row of a list the report caps.
REVIEW_CSV = "review_trials.csv"
UNSCORED_CSV = "unscored.csv"
BINS = ("0–0.25", "0.25–0.5", "0.5–0.75", "0.75–<1", "1.0")


def snapshot_lines(data: ReportData) -> list[str]:
    lines = ["## Snapshot", ""]
    for snap in data.snapshots:
        lines.append(f"### Run {md_code(snap.run_id)}")
        lines.append("")
        lines.append(
            f"- Date: {md_text(snap.created_at or 'unknown')}; medeval "
            f"{md_text(snap.medeval_version or '?')}; seed {snap.seed}"
        )
        if snap.git_commit:
            lines.append(f"- Code commit: {md_code(snap.git_commit[:12])}")
        lines.append(
            f"- Judges: {md_text(', '.join(snap.judge_panel()) or '-')}; extractor: "
            f"{md_text(snap.extractor or '-')}; "
            f"adjudicator: {md_text(snap.adjudicator or 'none (ties go to review)')}"
        )
        lines.append("")
        rows = [
            (spec, ", ".join(snap.served_models.get(spec, [])) or "(no trials)")
            for spec in (snap.targets or sorted(snap.served_models))
        ]
        lines.extend(table(("Requested model", "Served model(s)"), rows))
        lines.extend(
            table(
                ("Prompt", "sha256"),
                [(role, Md(f"`{short(h)}`")) for role, h in sorted(snap.prompts.items())],
            )
        )
        lines.extend(
            table(
                ("Scenario", "Version", "sha256"),
                [(s.scenario_id, s.version, Md(f"`{short(s.sha256)}`")) for s in snap.scenarios],
            )
        )
    return lines


def summary_lines(data: ReportData) -> list[str]:
    rows = [
        (
            t.target,
            ", ".join(t.served_models) or "-",
            t.trials,
            with_ci(t.accuracy),
            with_ci(t.completeness),
            num(t.safety_risk),
            f"{pct(t.ac.estimate)} ({ci(t.ac, True)}, n={t.ac.n})",
            t.left_out["needs_review"],
            t.left_out["not_scored"],
            t.needs_review,
            t.unscored_items,
        )
        for t in data.targets
    ]
    return [
        "## Summary per target",
        "",
        *table(
            (
                "Target",
                "Served",
                "Trials",
                "Accuracy (95% CI)",
                "Completeness (95% CI)",
                "Safety risk",
                "Accurate & complete (95% CI)",
                "Groups needing review",
                "Groups not scored",
                "Trials to review",
                "Unscored items",
            ),
            rows,
        ),
        "Accuracy and completeness are trial means with a cluster-bootstrap interval (clusters = scenarios); "
        "Accurate & complete is the share of scored question groups with a Wilson interval; groups "
        "needing review or not scored (the judges failed) are left out of it and counted apart. "
        "See docs/statistics.md.",
        "",
    ]


def ship_cells(row: ShipRow) -> list[object]:
    shares = [f"{row.counts[c]} ({pct(row.pct(c))})" for c in SHIP_CATEGORIES]
    left_out = ["" if row.left_out is None else row.left_out.get(c, 0) for c in LEFT_OUT]
    return [row.question_group, row.label, row.n, *shares, ci(row.ac, True), *left_out]


def ship_lines(data: ReportData, paths: ReportPaths) -> list[str]:
    header = (
        "Question group",
        "Responder",
        "n",
        *(CATEGORY_LABELS[c] for c in SHIP_CATEGORIES),
        "A&C 95% CI",
        "Needs review",
        "Not scored",
    )
    groups = [r for r in data.ship if r.question_group not in (POOLED, POOLED_OTHER)]
    pooled = [r for r in data.ship if r.question_group in (POOLED, POOLED_OTHER)]
    chart = paths.charts[0].relative_to(paths.directory).as_posix()
    return [
        "## SHIP-style table",
        "",
        "Counts (and shares) of scored question groups per SHIP category; counselor rows are the published "
        f"SHIP results ({baseline_citation()}). "
        "The pooled counselor rows cover all 19 scored groups of the study; the AI rows beside them "
        "(ALL) pool the same study groups only, and ALL-OTHER pools the groups the study did not have. "
        "Needs review (the category hangs on an undecided claim or checklist item) and Not scored (the "
        "judges failed: extraction or every verifier) are left out of n and of the categories, and "
        "counted in their own columns. Same numbers as `ship_table.csv`.",
        "",
        *table(header, [ship_cells(r) for r in groups]),
        "### Pooled over question groups",
        "",
        *table(header, [ship_cells(r) for r in pooled]),
        f"![SHIP categories per target]({chart})",
        "",
    ]


def scenario_lines(data: ReportData) -> list[str]:
    rows = [
        (
            s.scenario_id,
            s.target,
            s.n,
            with_ci(s.accuracy),
            with_ci(s.completeness),
            num(s.safety_risk),
            s.needs_review,
        )
        for s in data.scenarios
    ]
    return [
        "## Per scenario",
        "",
        *table(
            (
                "Scenario",
                "Target",
                "n",
                "Accuracy (95% CI)",
                "Completeness (95% CI)",
                "Safety risk",
                "Needs review",
            ),
            rows,
        ),
    ]


def distribution_lines(data: ReportData, paths: ReportPaths) -> list[str]:
    chart = paths.charts[1].relative_to(paths.directory).as_posix()
    rows = []
    for target, metrics in data.distributions.items():
        for metric, counts in metrics.items():
            rows.append((target, metric, *counts))
    return [
        "## Accuracy and completeness distributions",
        "",
        "Trials per score band (trials with no judged claim have no accuracy and are not counted there).",
        "",
        *table(("Target", "Score", *BINS), rows),
        f"![Accuracy and completeness per trial]({chart})",
        "",
    ]


def fact_count_table(count_header: str, items: Sequence[FactRef]) -> list[str]:
    """Facts with how often they were missed or contradicted, each with its text and source."""
    if not items:
        return ["None.", ""]
    labels = key_labels(items)
    rows = [(m.count, label, m.fact_id, m.text, m.source) for m, label in zip(items, labels, strict=True)]
    return table((count_header, "Scenario", "Fact", "Fact text", "Source"), rows)


def failure_lines(data: ReportData) -> list[str]:
    f = data.findings
    lines = ["## Common failure modes", "", "### Error categories (question groups)", ""]
    lines += (
        table(("Category", "Question groups"), f.error_categories) if f.error_categories else ["None.", ""]
    )
    lines += ["### Most-missed required points", ""]
    lines += fact_count_table("Times missed", f.missed_points)
    lines += ["### Most-contradicted facts", ""]
    lines += fact_count_table("Times contradicted", f.contradicted_facts)
    lines += contact_lines(data.contacts)
    lines += ["## Exemplary incorrect responses", ""]
    if not f.exemplars:
        lines += ["No claim was judged contradicted.", ""]
    for ex in f.exemplars:
        lines += [
            f"**{md_text(ex.target)}**, {md_text(ex.scenario_id)} / {md_text(ex.question_group)} "
            f"(trial {md_code(ex.trial_id)}, severity {md_text(ex.severity)})",
            "",
            f"*Question:* {md_text(ex.question)}",
            "",
            f"> {md_text(ex.quote)}",
            "",
        ]
        for fact in ex.facts:
            lines.append(
                f"- Contradicts **{md_text(fact.fact_id)}**: {md_text(fact.text)} "
                f"*Source: {md_text(fact.source or 'unknown')}*"
            )
        lines.append("")
    return lines


def agreement_lines(data: ReportData) -> list[str]:
    a = data.findings.agreement
    if a.not_applicable:
        lines = [
            "## Judge agreement",
            "",
            f"Not applicable: {a.not_applicable}.",
            "",
            f"- Trials sent to manual review: {data.findings.review_total}",
            "",
        ]
        return lines + _review_table(data)
    lines = [
        "## Judge agreement",
        "",
        f"- Claims: {a.claims}; verifiers per claim: {a.judges}",
        f"- Krippendorff's alpha (nominal, verifier labels): {num(a.krippendorff_alpha, 3)}",
        f"- Fleiss' kappa (claims every verifier labelled, n={a.fleiss_claims}): {num(a.fleiss_kappa, 3)}",
        f"- Claims without unanimity: {a.not_unanimous} ({pct(a.not_unanimous_share)})",
        f"- Trials sent to manual review: {data.findings.review_total}",
        "",
        "n/a means undefined: no claims, or every verifier used one label throughout.",
        "",
    ]
    if a.excluded_claims:
        lines[-1:-1] = [
            f"Left out: {a.excluded_claims} claims from trials whose verifiers were all the same "
            "deterministic program (agreement by construction).",
        ]
    if data.findings.group_agreement:
        rows = [
            (
                g.question_group,
                g.agreement.claims,
                num(g.agreement.krippendorff_alpha, 3),
                num(g.agreement.fleiss_kappa, 3),
                pct(g.agreement.not_unanimous_share),
            )
            for g in data.findings.group_agreement
        ]
        lines += table(("Question group", "Claims", "Alpha", "Kappa", "Not unanimous"), rows)
    return lines + _review_table(data)


def _review_table(data: ReportData) -> list[str]:
    if not data.findings.review_trials:
        return []
    return [
        "### Trials sent to manual review",
        "",
        *capped(
            ("Trial", "Target", "Scenario", "Disagreement"),
            [(t, g, s, pct(d)) for t, g, s, d in data.findings.review_trials],
            data.findings.review_total,
            REVIEW_CSV,
        ),
    ]


def usage_lines(data: ReportData) -> list[str]:
    lines = ["## Tokens and cost per role", ""]
    if not data.findings.usage:
        return [*lines, "No model calls recorded (offline judges only, or calls.jsonl missing).", ""]
    rows = [
        (
            u.role,
            u.spec,
            u.calls,
            u.input_tokens if u.input_tokens is not None else "unknown",
            cached_cell(u.cached_tokens, u.cache_write_tokens),
            u.output_tokens if u.output_tokens is not None else "unknown",
            "unknown" if u.cost_usd is None else f"${u.cost_usd:.4f}",
        )
        for u in data.findings.usage
    ]
    header = ("Role", "Model", "Calls", "Input tokens", "of which cached", "Output tokens", "Cost (USD)")
    note = (
        "Cached input was read from the provider's prompt cache and is priced lower (written: priced higher)."
    )
    return [*lines, *table(header, rows), "", note]


def cached_cell(read: int | None, written: int | None) -> str:
    """Input tokens read from a prompt cache, with those written to it when there were any."""
    if read is None and written is None:
        return "unknown"
    return f"{read or 0}" + (f"; {written} written" if written else "")


def unscored_lines(data: ReportData) -> list[str]:
    lines = ["## Unscored items", ""]
    if not data.findings.unscored and not data.skipped_lines:
        return [*lines, "None.", ""]
    if data.skipped_lines:
        lines += [f"- {data.skipped_lines} torn or unreadable line(s) in results.jsonl were skipped.", ""]
    if data.findings.unscored:
        lines += capped(
            ("Trial", "Target", "Scenario", "Item", "Reason"),
            [(u.trial_id, u.target, u.scenario_id, u.item, u.reason) for u in data.findings.unscored],
            data.findings.unscored_total,
            UNSCORED_CSV,
        )
    return lines


def integrity_lines(data: ReportData) -> list[str]:
    if not data.integrity:
        return []
    return [
        "> **Warning: the run failed its integrity checks** (`medeval verify`); its figures may "
        "count edited, missing or duplicated trials:",
        ">",
        *(f"> - {cell(problem)}" for problem in data.integrity),
        "",
    ]


def pending_lines(data: ReportData) -> list[str]:
    """Items not scored because the key's value is pending: only when there are any."""
    if not data.pending:
        return []
    return [
        "## Items awaiting a published value",
        "",
        "Not scored for any answer, never counted as an error or an omission (see `medeval keys status`).",
        "",
        *table(
            ("Target", "Scenario", "Group", "Item", "Groups", "Reason"),
            [(p.target, p.scenario_id, p.question_group, p.item, p.groups, p.reason) for p in data.pending],
        ),
        "",
    ]


def render(data: ReportData, paths: ReportPaths) -> str:
    runs = ", ".join(md_code(s.run_id) for s in data.snapshots)
    lines = [
        "# medeval report",
        "",
        RESEARCH_BANNER,
        "",
        *integrity_lines(data),
        f"{data.trials} trials from run(s) {runs}. "
        "Files: `trials.csv`, `per_scenario.csv`, `ship_table.csv`, `unscored.csv`, `review_trials.csv`, "
        "`contacts.csv`, "
        "`report.html` (transcripts with the evidence in place). Long lists here show their first "
        f"{LIST_CAP} rows and say where the rest are.",
        "",
        *(headline_markdown(data.headline) if data.headline else []),
        *(corrected_markdown(data.corrected) if data.corrected and data.corrected.targets else []),
        *seasons_markdown(data.seasons),
        *summary_lines(data),
        *provenance_markdown(data.provenance),
        *ship_lines(data, paths),
        *human_lines(data.human),
        *sensitivity_lines(data.sensitivity),
        *pairs_markdown(data.findings.pairs),
        *consistency_markdown(data.consistency),
        *scenario_lines(data),
        *distribution_lines(data, paths),
        *failure_lines(data),
        *agreement_lines(data),
        *usage_lines(data),
        *unscored_lines(data),
        *pending_lines(data),
        # What the numbers describe, after the numbers.
        *snapshot_lines(data),
    ]
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(data: ReportData, paths: ReportPaths) -> None:
    paths.markdown.write_text(redact(render(data, paths)), encoding="utf-8")

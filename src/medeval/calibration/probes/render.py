"""The probes as text: the table rows `medeval calibrate --probes` prints and probes.md holds, and the
sentences a report's judge-validity section says about a probed judge."""

from __future__ import annotations

from medeval.calibration.measures import Interval
from medeval.calibration.probes.flips import WHAT_CHANGES, JudgeProbes, ProbeRate, ProbeReport
from medeval.calibration.render import md_table, pct, rate
from medeval.review.categories import CATEGORY_SHORT, STUDY_CATEGORIES

HEADER = (
    "Probe",
    "Arms (a / b)",
    "Compared",
    "Flip rate (95% CI)",
    "b better / worse",
    *(CATEGORY_SHORT[c] for c in STUDY_CATEGORIES),
    "Over threshold",
)


def short(interval: Interval) -> str:
    """A cell: flips/answers, the rate and its Wilson interval, compactly."""
    if interval.estimate is None or interval.low is None or interval.high is None:
        return "n/a"
    flips = round(interval.estimate * interval.n)
    return (
        f"{flips}/{interval.n} {pct(interval.estimate)} ({100 * interval.low:.1f}–{100 * interval.high:.1f})"
    )


def rows(judge: JudgeProbes) -> list[list[str]]:
    return [
        [
            p.probe,
            " / ".join(p.arms),
            str(p.compared),
            short(p.rate),
            f"{p.toward_b_better} / {p.toward_b_worse}",
            *(short(p.per_category[c]) for c in STUDY_CATEGORIES),
            "YES" if p.exceeded else "no",
        ]
        for p in judge.probes
    ]


def title(judge: JudgeProbes) -> str:
    family = judge.family or "none"
    panel = ", ".join(judge.panel)
    return f"Judge {judge.judge} (panel {panel}; extractor {judge.extractor}; vendor family {family})"


def notes(judge: JudgeProbes) -> list[str]:
    out = []
    for p in judge.probes:
        if p.caught:
            called = ", ".join(f"{arm} {rate(i)}" for arm, i in p.caught.items())
            out.append(f"position: called Incorrect when the wrong statement stands {called}.")
        if p.absent:
            out.append(f"{p.probe}: {p.absent} answer(s) sat out (no wrong statement for their group).")
        if p.left_out:
            out.append(f"{p.probe}: {p.left_out} answer(s) left out (an arm the judges could not score).")
    sp = judge.self_preference
    line = f"self-preference: {sp.note}"
    if sp.difference is not None:
        line += (
            f"; difference {100 * sp.difference:+.1f} points (95% CI {100 * (sp.low or 0):+.1f} to "
            f"{100 * (sp.high or 0):+.1f}; threshold +{100 * sp.threshold:.0f})"
        )
    out.append(line + ".")
    return out


def over_text(p: ProbeRate) -> str:
    return f"{p.probe} {rate(p.rate)}"


def verdict(judge: JudgeProbes) -> str:
    """One sentence: is the judge named, and for what."""
    reasons = [over_text(p) for p in judge.over()]
    if judge.self_preference.exceeded and judge.self_preference.difference is not None:
        reasons.append(f"self-preference {100 * judge.self_preference.difference:+.1f} points")
    if reasons:
        return f"{judge.judge} is named: over the threshold on {'; '.join(reasons)}."
    worst = max(judge.probes, key=lambda p: p.rate.estimate or 0.0, default=None)
    largest = f" (largest flip rate: {over_text(worst)})" if worst is not None else ""
    return f"{judge.judge} stays under every threshold{largest}."


def intro(report: ProbeReport) -> str:
    return (
        f"Bias probes on {report.reference} ({report.answers} answers, seed {report.seed}): a flip is "
        f"a different category for the same answer in the probe's two arms; a judge is named where a "
        f"flip rate is credibly above {pct(report.flip_threshold)} (its 95% interval's lower bound) or "
        f"its same-family favour credibly above {100 * report.self_preference_threshold:.0f} points."
    )


def markdown(report: ProbeReport) -> str:
    lines = ["# Judge bias probes", "", intro(report), "", "What each probe changes:", ""]
    lines += [f"- {probe}: {what}" for probe, what in WHAT_CHANGES.items()]
    lines.append("")
    for judge in report.judges:
        lines += [f"## {title(judge)}", ""]
        lines += md_table(HEADER, rows(judge))
        lines += [f"- {n}" for n in notes(judge)]
        lines += ["", verdict(judge), ""]
    return "\n".join(lines).rstrip() + "\n"


def report_line(judge: JudgeProbes, report: ProbeReport, source: str) -> str:
    """What a run report says about a judge of its panel that was probed."""
    where = f"(probes of {report.created_at[:10]} on {report.reference}, {source})"
    if not judge.named():
        return f"Bias probes: {verdict(judge)} {where}"
    return (
        f"Bias probes: judge {verdict(judge)} Read its categories in this report with that in mind; "
        f'docs/statistics.md, "Judge bias probes", says what each flip rate means. {where}'
    )

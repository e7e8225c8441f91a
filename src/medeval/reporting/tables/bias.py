"""What a report's judge-validity section says about judge bias: every judge that shares a vendor
family with a target (self-preference), and every judge a bias probe named (probes.json from
`medeval calibrate --probes`, given with `medeval report --probes` or copied into a run directory).
docs/statistics.md, "Judge bias probes", gives the thresholds and what a flip rate means."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from medeval.calibration.probes.family import same_family
from medeval.calibration.probes.flips import ProbeReport
from medeval.calibration.probes.render import report_line
from medeval.errors import UserError
from medeval.records.user_files import REFERENCE_MAX_BYTES, read_user_text
from medeval.reporting.loading.run import RunSnapshot

#: A probes.json in a run directory is read by every report of that run.
RUN_PROBES = "probes.json"
NOT_PROBED = (
    "The judges were not probed for bias: `medeval calibrate --probes --judge SPEC` writes probes.json, "
    "and `medeval report RUN_DIR --probes probes.json` (or a probes.json copied into the run directory) "
    "names here any judge over a threshold."
)


def load_probes(path: Path) -> ProbeReport:
    text = read_user_text(path, limit=REFERENCE_MAX_BYTES, what="probes (probes.json)")
    try:
        return ProbeReport.model_validate(json.loads(text))
    except (ValueError, ValidationError):
        raise UserError(
            f"{path}: not a probes.json written by `medeval calibrate --probes`; pass that file"
        ) from None


def probe_files(run_dirs: list[Path], given: list[Path]) -> list[tuple[Path, ProbeReport]]:
    paths = [*given, *(d / RUN_PROBES for d in run_dirs if (d / RUN_PROBES).is_file())]
    return [(p, load_probes(p)) for p in dict.fromkeys(paths)]


def judges_of(snapshots: list[RunSnapshot]) -> list[str]:
    """Every judge whose output a report's categories rest on: verifiers and the extractor."""
    specs = [j for s in snapshots for j in [*s.judge_panel(), *([s.extractor] if s.extractor else [])]]
    return list(dict.fromkeys(specs))


def judge_bias(snapshots: list[RunSnapshot], probes: list[tuple[Path, ProbeReport]]) -> list[str]:
    judges = judges_of(snapshots)
    targets = [t for s in snapshots for t in s.targets]
    # The newest probe of each judge counts.
    latest: dict[str, tuple[Path, ProbeReport]] = {}
    for path, report in sorted(probes, key=lambda item: item[1].created_at):
        for result in report.judges:
            latest[result.judge] = (path, report)
    lines = []
    for judge, target, family in same_family(targets, judges):
        line = (
            f"Same vendor family: judge {judge} and target {target} are both {family} models, and a "
            "judge can favour answers from its own family (self-preference). Judge this target with a "
            "judge of another family too (`medeval rescore RUN_DIR --judge SPEC`) before comparing it."
        )
        if judge in latest:
            probed = latest[judge][1].judge(judge)
            if probed is not None:
                line += f" Probe: {probed.self_preference.note}."
        lines.append(line)
    if not lines and judges:
        lines.append("No judge shares a vendor family with a target (self-preference does not arise).")
    if not probes:
        return [*lines, NOT_PROBED]
    for judge in judges:
        if judge not in latest:
            lines.append(
                f"Bias probes: no probe results for judge {judge} in the probes given; run "
                f"`medeval calibrate --probes --judge {judge}`."
            )
            continue
        path, report = latest[judge]
        probed = report.judge(judge)
        if probed is not None:
            lines.append(report_line(probed, report, path.name))
    return lines

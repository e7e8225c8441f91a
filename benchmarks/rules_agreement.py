"""How well the offline rules coder agrees with the phrasing corpus (a benchmark that prints
figures; tests/test_rules_corpus.py keeps floors under them).

    .venv/bin/python benchmarks/rules_agreement.py [--misses] [--group QG10] [--scenarios DIR] [--pipeline]

Every answer of the corpus (benchmarks/corpus/ship_phrasings.jsonl by default, or --corpus FILE,
e.g. benchmarks/corpus/ship_wrong_details.jsonl; see their README) is coded by the
rules coder for its scenario's question group, and its SHIP category is compared with the label the
corpus writer gave from the study's rule. By default the coder's output goes straight through the
scorer's rule (fast, for tuning keys); --pipeline judges each answer through the harness's own
judging pipeline, exactly as `medeval calibrate` does. --scenarios DIR uses the scenario files in
DIR instead of the bundled ones of the same id (a key under edit). Printed:

- the confusion matrix: rows the label, columns the coder's category (needs_review included);
- agreement and Cohen's kappa on the groups the coder decided (any of the study's four);
- the review rate: the share sent to needs_review;
- Incorrect recall: the share of answers labelled Incorrect that the coder codes Incorrect or
  sends to review (a person then sees them);
- agreement per question group, and with --misses every disagreement with its id.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from medeval.agents import rules
from medeval.agents.extractor import RULES
from medeval.calibration.reference import load_reference, load_scenarios
from medeval.engine.calibrate import calibrate, calibration_config
from medeval.scenarios.load import expand_paths, load_scenario, season_dir
from medeval.schemas import MATERIAL_SEVERITIES, Label, Scenario, VerifierOutput

CORPUS = Path(__file__).resolve().parent / "corpus" / "ship_phrasings.jsonl"
STUDY = ("accurate_complete", "substantive_incomplete", "not_substantive", "incorrect")
REVIEW = "needs_review"
NOT_SCORED = "not_scored"
COLUMNS = (*STUDY, REVIEW, NOT_SCORED)
SHORT = {
    "accurate_complete": "A&C",
    "substantive_incomplete": "SBI",
    "not_substantive": "NS",
    "incorrect": "INC",
    "needs_review": "REVIEW",
    "not_scored": "UNSCORED",
}


@dataclass
class Coded:
    row_id: str
    group: str
    label: str
    category: str
    why: str


@dataclass
class Figures:
    coded: list[Coded]
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.confusion = dict(Counter((c.label, c.category) for c in self.coded))

    @property
    def decided(self) -> list[Coded]:
        return [c for c in self.coded if c.category in STUDY]

    @property
    def agreement(self) -> float:
        decided = self.decided
        return sum(c.label == c.category for c in decided) / len(decided) if decided else 0.0

    @property
    def review_rate(self) -> float:
        return sum(c.category == REVIEW for c in self.coded) / len(self.coded) if self.coded else 0.0

    @property
    def incorrect_recall(self) -> float:
        wrong = [c for c in self.coded if c.label == "incorrect"]
        caught = [c for c in wrong if c.category in ("incorrect", REVIEW)]
        return len(caught) / len(wrong) if wrong else 1.0

    @property
    def false_incorrect(self) -> float:
        """Incorrect where the label is not, as a share of the decided groups: what moves a target's
        Incorrect rate by formatting rather than error."""
        decided = self.decided
        wrong = sum(c.category == "incorrect" and c.label != "incorrect" for c in decided)
        return wrong / len(decided) if decided else 0.0

    @property
    def not_substantive_recall(self) -> float:
        """The share of answers labelled Not Substantive coded so or sent to review."""
        labelled = [c for c in self.coded if c.label == "not_substantive"]
        caught = [c for c in labelled if c.category in ("not_substantive", REVIEW)]
        return len(caught) / len(labelled) if labelled else 1.0

    @property
    def kappa(self) -> float:
        return cohen_kappa([(c.label, c.category) for c in self.decided])

    def misses(self) -> list[Coded]:
        return [c for c in self.coded if c.category != c.label]


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> float:
    """Cohen's kappa of two raters' categories: (observed - chance) / (1 - chance)."""
    pairs = list(pairs)
    if not pairs:
        return 0.0
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    chance = sum(first[k] * second[k] for k in set(first) | set(second)) / (n * n)
    return 1.0 if chance == 1 else (observed - chance) / (1 - chance)


def category(scenario: Scenario, group: str, output: VerifierOutput) -> tuple[str, str]:
    """The group's category from the coder's output, in the scorer's order: Incorrect on a
    material contradiction; A&C when the rule's number of required items is covered; SBI when any
    item or partial-credit fact is; Not Substantive on a recognised non-answer; needs review when
    something is uncertain; else Not Substantive (nothing addressed, nothing uncertain)."""
    key = scenario.group_key(group)
    required = key.required() if key else scenario.group_required_points(scenario.groups().get(group, []))
    partial = set(key.rule.partial_credit) if key else set()
    required = [r for r in required if r not in partial]
    not_substantive = set(key.rule.not_substantive) if key else None
    for verdict in output.verdicts:
        if verdict.label == Label.CONTRADICTED and verdict.severity in MATERIAL_SEVERITIES:
            return "incorrect", f"contradicts {', '.join(verdict.evidence)}"
    covered = {c.fact_id for c in output.checklist if c.code == "covered"}
    supported = {e for v in output.verdicts if v.label == Label.SUPPORTED for e in v.evidence}
    needed = (
        len(required) if not key or key.rule.complete == "all" else min(int(key.rule.complete), len(required))
    )
    done = [r for r in required if r in covered]
    if required and len(done) >= needed:
        return "accurate_complete", f"covers {len(done)}/{len(required)}"
    # An item the coder abstained on (left out of its checklist) is undecided: review when it
    # could complete the answer, as the scorer does.
    coded = {c.fact_id for c in output.checklist}
    undecided = [r for r in required if r not in coded]
    if undecided and len(done) + len(undecided) >= needed:
        return REVIEW, f"undecided: {', '.join(undecided)}"
    if covered or (partial & supported):
        return "substantive_incomplete", f"covers {', '.join(sorted(covered | (partial & supported)))}"
    if output.non_answer and (not_substantive is None or output.non_answer in not_substantive):
        return "not_substantive", f"non-answer: {output.non_answer}"
    if output.uncertain:
        return REVIEW, f"uncertain: {output.uncertain[0][:90]!r}"
    return "not_substantive", "addresses no item, nothing uncertain"


def code_corpus(rows: list[dict[str, str]], scenarios_dir: Path | None = None) -> Figures:
    """Code every row; scenario files in `scenarios_dir` stand in for the bundled ones of the
    same id (to try a key under edit)."""
    # The corpora are 2026 answers: the 2026 season's keys (the bundle holds every season's under
    # the same ids).
    paths = expand_paths([season_dir()])
    if scenarios_dir is not None:
        paths += expand_paths([scenarios_dir])
    library = {s.scenario_id: s for s in (load_scenario(p) for p in paths)}
    coded = []
    for row in rows:
        scenario = library[row["scenario_id"]]
        output = rules.code_answer(scenario, row["question_group"], row["answer"])
        got, why = category(scenario, row["question_group"], output)
        coded.append(Coded(row["id"], row["question_group"], row["category"], got, why))
    return Figures(coded)


def code_corpus_pipeline(path: Path, scenarios_dir: Path | None = None) -> Figures:
    """Judge every answer through the harness's own judging pipeline (the one `medeval
    calibrate` and a run use: rules extractor, two rules verifiers, adjudicator, scorer)."""
    reference = load_reference(path, load_scenarios([scenarios_dir] if scenarios_dir else []))
    config = calibration_config(reference, [RULES], judge_count=2, extractor=RULES)
    result = calibrate(reference, config)
    direct = {c.row_id: c for c in code_corpus(load(path), scenarios_dir).coded}
    coded = []
    for answer in result.answers:
        got = answer.judges if answer.judges in COLUMNS else NOT_SCORED
        why = answer.reason or direct[answer.id].why
        coded.append(Coded(answer.id, answer.question_group, answer.human, got, why))
    return Figures(coded)


def load(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def report(figures: Figures, *, misses: bool, group: str | None) -> str:
    lines = [f"rules coder on {len(figures.coded)} corpus answers", ""]
    width = 9
    lines.append("label \\ coder".ljust(14) + "".join(SHORT[c].rjust(width) for c in COLUMNS))
    for label in STUDY:
        counts = [figures.confusion.get((label, c), 0) for c in COLUMNS]
        lines.append(SHORT[label].ljust(14) + "".join(str(n).rjust(width) for n in counts))
    decided = len(figures.decided)
    lines += [
        "",
        f"agreement on decided groups: {figures.agreement:.1%} ({decided} decided)",
        f"Cohen's kappa (decided):     {figures.kappa:.3f}",
        f"review rate:                 {figures.review_rate:.1%}",
        f"Incorrect recall:            {figures.incorrect_recall:.1%} (coded Incorrect or sent to review)",
        f"false Incorrect:             {figures.false_incorrect:.1%} of decided (Incorrect, label not)",
        f"Not Substantive recall:      {figures.not_substantive_recall:.1%} (coded NS or sent to review)",
        "",
        "per group (agree/decided, review):",
    ]
    by_group: dict[str, list[Coded]] = defaultdict(list)
    for c in figures.coded:
        by_group[c.group].append(c)
    for name in sorted(by_group, key=lambda g: int("".join(ch for ch in g if ch.isdigit()) or 0)):
        rows = by_group[name]
        decided_rows = [c for c in rows if c.category != REVIEW]
        agree = sum(c.label == c.category for c in decided_rows)
        review = len(rows) - len(decided_rows)
        lines.append(f"  {name:<5} {agree}/{len(decided_rows)} agree, {review} review")
    if misses:
        lines += ["", "misses (id: label -> coder: why):"]
        for c in figures.misses():
            if group is None or c.group == group:
                lines.append(f"  {c.row_id}: {SHORT[c.label]} -> {SHORT[c.category]}: {c.why}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--misses", action="store_true", help="list every disagreement with its id")
    parser.add_argument("--group", help="only this question group's misses")
    parser.add_argument(
        "--scenarios", type=Path, help="a folder of scenario files to use instead of the bundled ones"
    )
    parser.add_argument(
        "--pipeline",
        action="store_true",
        help="judge through the harness's judging pipeline (as `medeval calibrate`), not the coder directly",
    )
    args = parser.parse_args(argv)
    if args.pipeline:
        figures = code_corpus_pipeline(args.corpus, args.scenarios)
    else:
        figures = code_corpus(load(args.corpus), args.scenarios)
    if args.group:
        figures = Figures([c for c in figures.coded if c.group == args.group])
    print(report(figures, misses=args.misses or bool(args.group), group=args.group))
    return 0


if __name__ == "__main__":
    sys.exit(main())

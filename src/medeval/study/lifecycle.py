"""Models of a study that retire soon: `validate --study` warns, so a study is not planned around a
model that stops answering before its run ends (a retired model is refused outright elsewhere)."""

from __future__ import annotations

from datetime import date

from medeval.adapters.catalog import find_model
from medeval.adapters.registry import parse_spec
from medeval.errors import UserError
from medeval.study.model import StudyFile

#: Warn when a model retires within this many days.
RETIRING_SOON_DAYS = 30


def study_specs(study: StudyFile) -> list[str]:
    judging = study.judging
    roles = [judging.extractor, judging.adjudicator, judging.questioner]
    specs = [t.spec for t in study.targets] + list(judging.judges) + [s for s in roles if s]
    return list(dict.fromkeys(specs))


def retiring_soon(study: StudyFile, today: date | None = None, days: int = RETIRING_SOON_DAYS) -> list[str]:
    """One line per model of the study that retires within `days` of `today`."""
    today = today or date.today()
    lines = []
    for spec in study_specs(study):
        try:
            provider, model = parse_spec(spec)
        except UserError:
            continue  # named as a problem by study_problems
        entry = find_model(provider, model)
        if entry is None or entry.retires_on is None:
            continue
        left = (entry.retires_on - today).days
        if 0 <= left <= days:
            successors = " or ".join(f"{provider}:{s}" for s in entry.successors) or "a current model"
            lines.append(
                f"{spec} retires {entry.retirement_text()}, in {left} day{'s' if left != 1 else ''}: "
                f"a run after that date is refused; plan the study on {successors}"
            )
    return lines

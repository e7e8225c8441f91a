"""Study files: a whole study (targets with their settings, scenarios, variants, epochs, judges)
declared in one TOML file, turned into the same `RunConfig` the command line builds.
Imports the engine's config, scenarios, fakes and adapters' catalog; only cli and api import it."""

from medeval.study.load import load_study, read_study, study_problems
from medeval.study.model import StudyFile

__all__ = ["StudyFile", "load_study", "read_study", "study_problems"]

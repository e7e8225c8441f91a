"""Everything `medeval ingest` checks before it writes anything: read and parse every file, resolve
each conversation's scenario and provenance, hash the attachments it names, and match its turns to
the script. Every problem in every file is collected, one line each; any problem refuses the whole
ingestion before a run directory exists."""

from __future__ import annotations

import hashlib
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from medeval.engine.ingest.csv_format import parse_csv
from medeval.engine.ingest.jsonl_format import parse_jsonl
from medeval.engine.ingest.markdown_format import parse_markdown
from medeval.engine.ingest.match import Matched, Similarity, match_conversation
from medeval.engine.ingest.transcript import ParsedFile, RawConversation
from medeval.engine.orchestrator import LoadedScenario
from medeval.errors import UserError
from medeval.records.user_files import TRANSCRIPT_MAX_BYTES, read_user_bytes
from medeval.schemas import Attachment, IngestSource, Provenance

PARSERS = {
    ".csv": parse_csv,
    ".jsonl": parse_jsonl,
    ".ndjson": parse_jsonl,
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".txt": parse_markdown,
}
SCREENSHOT = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic", ".pdf"}
AUDIO = {".mp3", ".m4a", ".wav", ".ogg", ".aac", ".flac", ".webm"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass
class Planned:
    """One conversation ready to be judged."""

    loaded: LoadedScenario
    matched: Matched
    source: IngestSource
    #: Its place among the conversations of its scenario (1, 2...): the trial's epoch.
    epoch: int


def read_file(path: Path) -> ParsedFile:
    """The file parsed, or a ParsedFile holding the one problem that stopped its reading."""
    parser = PARSERS.get(path.suffix.lower())
    if parser is None:
        problem = (
            f"{path}: unknown transcript format {path.suffix or '(no extension)'!r}; "
            "pass a .csv, .jsonl or .md file (see examples/)"
        )
        return ParsedFile(path, "markdown", [], [problem])
    try:
        data = read_user_bytes(path, limit=TRANSCRIPT_MAX_BYTES, what="transcript")
        text = data.decode("utf-8-sig")
    except UserError as error:
        return ParsedFile(path, "markdown", [], list(error.lines))
    except UnicodeDecodeError:
        return ParsedFile(path, "markdown", [], [f"{path}: not UTF-8 text; save the transcript as UTF-8"])
    parsed = parser(path, text)
    parsed.sha256 = hashlib.sha256(data).hexdigest()
    return parsed


def attachment(base: Path, name: str) -> Attachment | str:
    """The named file by hash, or the problem (it must exist: a hash of nothing proves nothing).
    Hashed a megabyte at a time: a call's recording may be large, and only a regular file is read."""
    path = Path(name).expanduser()
    path = path if path.is_absolute() else base / path
    try:
        info = path.stat()
    except OSError:
        return f"attachment {name!r} not found (looked for {path}); give the file's path"
    if not stat.S_ISREG(info.st_mode):
        return f"attachment {name!r} is not a regular file ({path}); name a screenshot or recording file"
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as error:
        return f"attachment {name!r} cannot be read ({error.strerror or error}); check its permissions"
    suffix = path.suffix.lower()
    kind = "screenshot" if suffix in SCREENSHOT else "audio" if suffix in AUDIO else "other"
    return Attachment(path=name, kind=kind, sha256=digest.hexdigest(), bytes=info.st_size)


def provenance(
    raw: RawConversation, defaults: Provenance, base: Path, problems: list[str], where: str
) -> Provenance:
    given = dict(raw.provenance)
    product = given.pop("product", None)
    if product is not None and product != defaults.product:
        problems.append(
            f"{where}: conversation {raw.conversation_id!r} names product {product!r}, not "
            f"{defaults.product!r} (--product); ingest each product into its own run"
        )
    attachments = list(defaults.attachments)
    for name in raw.attachments:
        found = attachment(base, name)
        if isinstance(found, str):
            problems.append(f"{where}: {found}")
        else:
            attachments.append(found)
    if "collected_at" not in given and defaults.collected_at is None:
        # No date given: the day of the conversation's first dated turn, when it has one.
        dated = sorted(t.timestamp[:10] for t in raw.turns if t.timestamp and DATE.match(t.timestamp))
        if dated:
            given["collected_at"] = dated[0]
    return defaults.model_copy(update={**given, "attachments": attachments})


def choose_scenario(
    raw: RawConversation, scenarios: dict[str, LoadedScenario], problems: list[str], where: str
) -> LoadedScenario | None:
    if raw.scenario_id is not None:
        loaded = scenarios.get(raw.scenario_id)
        if loaded is None:
            problems.append(
                f"{where}: conversation {raw.conversation_id!r} names scenario {raw.scenario_id!r}, which "
                f"no --scenario file holds ({', '.join(scenarios)}); pass its file with --scenario"
            )
        return loaded
    if len(scenarios) == 1:
        return next(iter(scenarios.values()))
    questions = [t.text for t in raw.turns if t.role == "user"]

    def fit(loaded: LoadedScenario) -> float:
        script = [t.user_message for t in loaded.scenario.scripted_turns]
        similarity = Similarity(script)
        return sum(max((similarity(q, s) for s in script), default=0.0) for q in questions)

    return max(scenarios.values(), key=fit)


def plan_ingest(
    files: list[Path], scenarios: list[LoadedScenario], defaults: Provenance
) -> tuple[list[Planned], list[dict[str, object]]]:
    """(the conversations to judge, each file's record for the manifest); UserError with every
    problem, one line each, when anything is wrong."""
    by_id = {s.scenario.scenario_id: s for s in scenarios}
    problems: list[str] = []
    planned: list[Planned] = []
    recorded: list[dict[str, object]] = []
    epochs: dict[str, int] = {}
    seen: dict[str, Path] = {}
    for path in files:
        parsed = read_file(path)
        problems.extend(parsed.problems)
        if not parsed.conversations:
            continue
        file_sha = parsed.sha256
        recorded.append(
            {
                "path": str(path),
                "sha256": file_sha,
                "format": parsed.format,
                "conversations": len(parsed.conversations),
            }
        )
        for raw in parsed.conversations:
            where = f"{path}:{raw.line}"
            if raw.conversation_id in seen:
                problems.append(
                    f"{where}: conversation id {raw.conversation_id!r} is also in "
                    f"{seen[raw.conversation_id]}; give each conversation its own id"
                )
            seen[raw.conversation_id] = path
            loaded = choose_scenario(raw, by_id, problems, where)
            facts = provenance(raw, defaults, path.parent, problems, where)
            if loaded is None or not raw.turns:
                continue
            matched = match_conversation(raw, loaded.scenario, problems, str(path))
            if not matched.matched:
                problems.append(
                    f"{where}: no question in conversation {raw.conversation_id!r} matches a scripted "
                    f"turn of {loaded.scenario.scenario_id}; give turn ids, or check the --scenario"
                )
                continue
            scenario_id = loaded.scenario.scenario_id
            epochs[scenario_id] = epochs.get(scenario_id, 0) + 1
            source = IngestSource(
                conversation_id=raw.conversation_id,
                file=str(path),
                file_sha256=file_sha,
                format=parsed.format,
                line=raw.line,
                provenance=facts,
                matched=matched.matched,
                skipped=matched.skipped,
                unanswered=matched.unanswered,
                extra=matched.extra,
            )
            planned.append(Planned(loaded, matched, source, epochs[scenario_id]))
    if problems:
        raise UserError(problems[0], lines=problems)
    return planned, recorded

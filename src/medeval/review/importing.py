"""`medeval review import RUN_DIR CODES_FILE --coder NAME`: check a coder's file against the run, then
append it to reviews.jsonl as one record.

The whole file is checked before anything is written: every problem (an unknown item, a category
that is not one of the study's four, an item coded twice, an item whose content changed since it
was exported, a file already imported) is one line, and any problem means nothing is written.

An import is known by its codes, not its bytes: the same codes from the same coder are refused
however the file was re-saved or re-spaced. The export id the codes come back with names the coding
session; codes another coder name already imported from the same export are imported but flagged,
and count once (review/precedence.py). None of this authenticates a person (docs/methodology.md).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from medeval.errors import UserError
from medeval.records.hashing import canonical_json, sha256_file, sha256_text
from medeval.records.storage import MANIFEST, run_lock, utc_now
from medeval.records.user_files import CODES_MAX_BYTES, read_user_text
from medeval.review.categories import ACCEPTED, ITEM_CODES, parse_category, parse_item_code
from medeval.review.export import CODES_FORMAT
from medeval.review.items import ReviewItem, build_items, load_run
from medeval.review.store import Decision, ReviewImport, append_import, read_imports

#: A coder's note on one group: room for a paragraph of reasons, not for a pasted document.
MAX_NOTE_CHARS = 10_000
_CODER = re.compile(r"^[\w][\w .@'\-]{0,79}$")


class CodesFile(BaseModel):
    run_id: str | None
    export_id: str
    blind: bool | None
    coder: str
    entries: list[dict[str, Any]]


class ImportResult(BaseModel):
    record: ReviewImport
    items_coded: int
    previously_coded: int
    #: Lines to show: the codes share a session with another coder's, or repeat another's exactly.
    flags: list[str] = []


_EXPORT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NO_EXPORT_ID = (
    "holds no export id; import the codes file the coding page downloaded, or the CSV "
    "`medeval review export` wrote (export again if it is older than export ids)"
)


def read_codes(path: Path) -> CodesFile:
    """The JSON file the coding page downloads, or the export's CSV filled in a spreadsheet."""
    text = read_user_text(path, limit=CODES_MAX_BYTES, what="codes", encoding="utf-8-sig")
    if path.suffix.lower() == ".csv":
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as error:  # e.g. a quoted answer's closing quote lost in a spreadsheet
            raise UserError(
                f"{path}: not a readable CSV ({error}); import the sheet `medeval review export` wrote, "
                "saved as CSV"
            ) from None
        if rows and "item_id" not in rows[0]:
            raise UserError(f"{path}: no item_id column; fill in the CSV that `medeval review export` wrote")
        entries: list[dict[str, Any]] = [
            {**row, "_where": f"row {n}"}
            for n, row in enumerate(rows, start=2)
            if (row.get("category") or "").strip()
        ]
        export_ids = {(row.get("export_id") or "").strip().lstrip("'") for row in rows}
        blinds = {(row.get("blind") or "").strip().lower() for row in rows}
        if len(export_ids) > 1 or len(blinds) > 1:
            raise UserError(
                f"{path}: rows from more than one export (export_id or blind differ); import one "
                "export's sheet at a time"
            )
        blind = {"true": True, "false": False}.get(next(iter(blinds), ""))
        export_id = next(iter(export_ids), "")
        return CodesFile(run_id=None, export_id=export_id, blind=blind, coder="", entries=entries)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise UserError(f"{path}: not JSON ({error}); pass the file the coding page downloaded") from None
    except RecursionError:
        raise UserError(f"{path}: nested too deeply to be a codes file; pass the downloaded file") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != CODES_FORMAT
        or not isinstance(data.get("items"), list)
    ):
        raise UserError(
            f"{path}: not a medeval codes file (format {CODES_FORMAT!r}); pass the file the coding page "
            "downloaded, or the export's CSV"
        )
    entries = [
        {**entry, "_where": f"entry {n}"}
        if isinstance(entry, dict)
        else {"_where": f"entry {n}", "_bad": True}
        for n, entry in enumerate(data["items"], start=1)
    ]
    return CodesFile(
        run_id=str(data["run_id"]) if data.get("run_id") else None,
        export_id=str(data.get("export_id") or ""),
        blind=data.get("blind") if isinstance(data.get("blind"), bool) else None,
        coder=str(data.get("coder") or "").strip(),
        entries=entries,
    )


def _item_codes(raw: Any) -> dict[str, Any] | None:
    """Item codes as a mapping: JSON gives one; the CSV cell reads `F1=covered; F2=absent`."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        out: dict[str, Any] = {}
        for part in re.split(r"[;\n]", raw):
            if not part.strip():
                continue
            if "=" not in part:
                return None
            fact, code = part.split("=", 1)
            out[fact.strip()] = code.strip()
        return out
    return None


def check_codes(
    codes: CodesFile, items: dict[str, ReviewItem], run_id: str, coder: str, label: str
) -> tuple[list[Decision], list[str]]:
    """Decisions from the file, and one problem line per thing wrong with it."""
    problems: list[str] = []
    if codes.run_id is not None and codes.run_id != run_id:
        problems.append(
            f"{label}: these codes are for run {codes.run_id}, not {run_id}; import them into that run"
        )
        return [], problems
    if codes.coder and codes.coder != coder:
        problems.append(
            f"{label}: the page saved these codes under coder {codes.coder!r} but --coder is {coder!r}; "
            "pass the coder who made them"
        )
    if not _EXPORT_ID.match(codes.export_id):
        problems.append(f"{label}: {NO_EXPORT_ID}")
    seen: dict[str, str] = {}
    decisions: list[Decision] = []
    for entry in codes.entries:
        where = entry["_where"]
        if entry.get("_bad"):
            problems.append(f"{label} {where}: not an object; re-download the codes from the coding page")
            continue
        item_id = str(entry.get("item_id") or "").strip()
        item = items.get(item_id)
        if item is None:
            problems.append(
                f"{label} {where}: unknown item {item_id!r}: it names no scored question group "
                f"of run {run_id}"
            )
            continue
        if item_id in seen:
            problems.append(
                f"{label} {where}: item {item_id} is coded twice (also {seen[item_id]}); keep one"
            )
            continue
        seen[item_id] = where
        if str(entry.get("item_hash") or "") != item.item_hash:
            problems.append(
                f"{label} {where}: item {item_id} changed since it was exported (its content hash differs); "
                "export it again and re-code it"
            )
            continue
        category = parse_category(entry.get("category"))
        if category is None:
            problems.append(
                f"{label} {where}: item {item_id}: {entry.get('category')!r} is not a category; "
                f"use {ACCEPTED}"
            )
            continue
        note = str(entry.get("note") or "").strip()
        if len(note) > MAX_NOTE_CHARS:
            problems.append(
                f"{label} {where}: item {item_id}: the note is {len(note):,} characters; a note may have "
                f"at most {MAX_NOTE_CHARS:,} (MAX_NOTE_CHARS): shorten it"
            )
            continue
        raw_codes = _item_codes(entry.get("item_codes"))
        facts = {f.fact_id for f in item.facts}
        item_codes: dict[str, Any] = {}
        if raw_codes is None:
            problems.append(f"{label} {where}: item {item_id}: item codes must read FACT=code; FACT=code")
            continue
        bad = False
        for fact_id, value in raw_codes.items():
            code = parse_item_code(value)
            if fact_id not in facts:
                problems.append(
                    f"{label} {where}: item {item_id}: {fact_id!r} is not one of its checklist items"
                )
                bad = True
            elif code is None:
                problems.append(
                    f"{label} {where}: item {item_id}: {value!r} for {fact_id} is not one of "
                    f"{', '.join(ITEM_CODES)}"
                )
                bad = True
            else:
                item_codes[fact_id] = code
        if bad:
            continue
        decisions.append(
            Decision(
                item_id=item_id,
                item_hash=item.item_hash,
                trial_id=item.trial_id,
                question_group=item.question_group,
                scenario_id=item.scenario_id,
                target=item.target,
                judge_category=item.judge_category,
                category=category,
                item_codes=item_codes,
                judge_item_codes={f.fact_id: f.judge_code for f in item.facts if f.judge_code},
                note=note,
            )
        )
    if not codes.entries:
        problems.append(
            f"{label}: holds no coded group; pick a category for at least one group, then save again"
        )
    return decisions, problems


def import_codes(run_dir: Path, codes_path: Path, coder: str) -> ImportResult:
    coder = coder.strip()
    if not _CODER.match(coder):
        raise UserError(
            f"--coder {coder!r}: give a name of letters, digits, spaces, '.', '-' or '@' (at most 80)"
        )
    codes = read_codes(codes_path)
    if not (run_dir / MANIFEST).is_file():
        raise UserError(
            f"{run_dir}: not a run directory (no {MANIFEST}); pass the run the codes were exported from"
        )
    with run_lock(run_dir, "import codes into"):
        run = load_run(run_dir)
        items = {i.item_id: i for i in build_items(run)}
        source_sha256 = sha256_file(codes_path)
        previous = read_imports(run_dir)
        for earlier in previous:
            if earlier.source_sha256 == source_sha256:
                raise UserError(
                    f"{codes_path}: already imported into this run on {earlier.imported_at} (coder "
                    f"{earlier.coder}); nothing written. To correct codes, save a new file from the page"
                )
        decisions, problems = check_codes(codes, items, run.run_id, coder, str(codes_path))
        if problems:
            if len(problems) > 1:
                problems.append(f"{codes_path}: {len(problems)} problems; nothing was imported")
            raise UserError(problems[0], lines=problems)
        codes_sha256 = codes_digest(decisions)
        for earlier in previous:
            if earlier.coder == coder and earlier.codes_sha256 == codes_sha256:
                raise UserError(
                    f"{codes_path}: these codes were already imported for coder {coder} on "
                    f"{earlier.imported_at} (the same codes, however the file is spaced); nothing written"
                )
        flags = session_flags(previous, coder, codes.export_id, codes_sha256)
        record = ReviewImport(
            run_id=run.run_id,
            coder=coder,
            imported_at=utc_now(),
            source_name=codes_path.name,
            source_sha256=source_sha256,
            export_id=codes.export_id,
            blind=codes.blind,
            decisions=decisions,
            session=codes.export_id,
            codes_sha256=codes_sha256,
        )
        append_import(run_dir, record)
    before = {d.item_id for r in previous if r.coder == coder for d in r.decisions}
    return ImportResult(
        record=record,
        items_coded=len(decisions),
        previously_coded=sum(d.item_id in before for d in decisions),
        flags=flags,
    )


def codes_digest(decisions: list[Decision]) -> str:
    """What an import decided, per item (category and item codes), as one hash: the identity of
    the codes whatever file, spacing or note they came in."""
    return sha256_text(
        canonical_json(sorted([d.item_id, d.category, sorted(d.item_codes.items())] for d in decisions))
    )


def session_flags(previous: list[ReviewImport], coder: str, export_id: str, digest: str) -> list[str]:
    """Why these codes are not independent of another coder's (or may not be)."""
    flags = []
    for earlier in previous:
        if earlier.coder == coder:
            continue
        if earlier.session == export_id:
            same = "identical codes to" if earlier.codes_sha256 == digest else "codes from the same export as"
            flags.append(
                f"{same} coder {earlier.coder}'s import of {earlier.imported_at} (export {export_id}): one "
                "coding session, so these count once with them and never as consensus; each coder "
                "codes an export of their own"
            )
        elif earlier.codes_sha256 == digest:
            flags.append(
                f"identical codes to coder {earlier.coder}'s import of {earlier.imported_at} from another "
                "export: counted as independent; check the two were coded apart"
            )
    return flags

"""reviews.jsonl: people's codes for a run, append-only and hash-chained like results.jsonl.

One line per import: the coder, the time, the imported file's hash, and every decision in it, each
with the hash of the item as it was exported. One line is one write(2), so an import is all or
nothing. Nothing here rewrites a line; results.jsonl is never touched. The chain's head is kept in
reviews.checkpoint.json, so `medeval verify` can tell a deleted last import from a clean end.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from pydantic import BaseModel, Field

from medeval.records.storage import (
    REVIEWS,
    REVIEWS_CHECKPOINT,
    ChainedJsonl,
    StorageError,
    TornLineWarning,
    read_jsonl,
    record_reviews_head,
    utc_now,
    without_chain,
)
from medeval.review.categories import ItemCode, StudyCategory

REVIEW_SCHEMA = "review/1"


class Decision(BaseModel):
    item_id: str
    item_hash: str
    trial_id: str
    question_group: str
    scenario_id: str
    target: str
    judge_category: str  # the judges' category in results.jsonl when the codes were imported
    category: StudyCategory
    item_codes: dict[str, ItemCode] = Field(default_factory=dict)
    #: The judges' adjudicated checklist codes at import ("undecided" where they split).
    judge_item_codes: dict[str, str] = Field(default_factory=dict)
    note: str = ""


class ReviewImport(BaseModel):
    """One line of reviews.jsonl."""

    schema_version: str = REVIEW_SCHEMA
    run_id: str
    coder: str
    imported_at: str
    source_name: str
    source_sha256: str
    export_id: str = ""
    blind: bool | None = None
    decisions: list[Decision]
    #: The coding session the codes came from: the export's nonce id as the page or CSV returned it
    #: ("" in imports recorded before exports carried one; each coder is then its own session).
    session: str = ""
    #: sha256 of the codes themselves (per item: category and item codes), whatever the file's
    #: bytes: the same codes imported again, re-saved or re-spaced, are recognised.
    codes_sha256: str = ""


def read_imports(run_dir: Path) -> list[ReviewImport]:
    """Every readable import, in file order (a torn line is skipped, as readers of results do)."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TornLineWarning)
        for raw in read_jsonl(run_dir / REVIEWS):
            try:
                out.append(ReviewImport.model_validate(without_chain(raw)))
            except ValueError:
                continue
    return out


def append_import(run_dir: Path, record: ReviewImport) -> dict[str, object]:
    """Append one import and move the review chain's checkpoint. The caller holds the run lock."""
    chain = ChainedJsonl(run_dir / REVIEWS)
    stored = chain.append(record.model_dump(mode="json"))
    chain.sync()
    path = run_dir / REVIEWS_CHECKPOINT
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(
            json.dumps({"updated_at": utc_now(), "reviews": chain.head()}, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise StorageError(path, error) from None
    record_reviews_head(run_dir, chain.head())
    return stored

"""Where ingested conversations came from (`medeval ingest`): one row per conversation, read from
each run's manifest, so a report on conversations collected by hand always says who collected them,
when, from which product and version, through which channel, with which files, and how each one
matched the script."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from medeval.reporting.loading.run import RunSnapshot


class ProvenanceRow(BaseModel):
    run_id: str
    target: str
    conversation_id: str
    scenario_id: str
    source: str  # file:line
    product: str
    product_version: str
    collected_by: str
    collected_at: str
    channel: str
    counselor: bool
    attachments: list[str]  # "screenshot shots/a.png sha256 1a2b3c4d5e6f"
    matched: int
    matched_by_text: int
    skipped: list[str]
    unanswered: list[str]
    extra: int


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def provenance_rows(snapshots: list[RunSnapshot]) -> list[ProvenanceRow]:
    rows: list[ProvenanceRow] = []
    for snap in snapshots:
        entry = snap.ingest or {}
        target = snap.targets[0] if snap.targets else ""
        for item in entry.get("conversations") or []:
            facts = item.get("provenance") or {}
            rows.append(
                ProvenanceRow(
                    run_id=snap.run_id,
                    target=target,
                    conversation_id=_text(item.get("conversation_id")),
                    scenario_id=_text(item.get("scenario_id")),
                    source=f"{_text(item.get('file'))}:{_text(item.get('line'))}",
                    product=_text(facts.get("product")),
                    product_version=_text(facts.get("product_version")),
                    collected_by=_text(facts.get("collected_by")),
                    collected_at=_text(facts.get("collected_at")),
                    channel=_text(facts.get("channel")),
                    counselor=bool(facts.get("counselor")),
                    attachments=[
                        f"{_text(a.get('kind'))} {_text(a.get('path'))} sha256 {_text(a.get('sha256'))[:12]}"
                        for a in facts.get("attachments") or []
                        if isinstance(a, dict)
                    ],
                    matched=int(item.get("matched") or 0),
                    matched_by_text=int(item.get("matched_by_text") or 0),
                    skipped=[_text(t) for t in item.get("skipped") or []],
                    unanswered=[_text(t) for t in item.get("unanswered") or []],
                    extra=int(item.get("extra") or 0),
                )
            )
    return rows


def coded_label(target: str) -> str:
    """How a set of counselors' transcripts coded by this run's judges is named in tables."""
    return f"{target}: counselors, coded by these judges"


def counselor_targets(snapshots: list[RunSnapshot]) -> set[str]:
    """Targets whose answers are human counselors' (ingested with --counselor): the SHIP table shows
    them beside the study's counselor rows, as counselors coded by these judges."""
    found: set[str] = set()
    for snap in snapshots:
        facts = (snap.ingest or {}).get("provenance") or {}
        if facts.get("counselor"):
            found.update(snap.targets)
    return found

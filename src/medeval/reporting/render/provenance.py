"""The report's provenance section for conversations collected outside the harness: who collected
each one, when, from which product and version, through which channel, the files named by hash, and
how its turns matched the script."""

from __future__ import annotations

from medeval.reporting.render.md_cells import table
from medeval.reporting.tables.provenance import ProvenanceRow

HEADER = (
    "Conversation",
    "Target",
    "Scenario",
    "Product (version shown)",
    "Collected by",
    "Collected",
    "Channel",
    "Files (sha256)",
    "Matched (by text)",
    "Skipped",
    "Unanswered",
    "Extra turns",
    "Source",
)


def cells(row: ProvenanceRow) -> tuple[object, ...]:
    product = f"{row.product} ({row.product_version})" if row.product_version else row.product
    channel = f"{row.channel}, counselor" if row.counselor else row.channel
    return (
        row.conversation_id,
        row.target,
        row.scenario_id,
        product,
        row.collected_by or "not recorded",
        row.collected_at or "not recorded",
        channel,
        "; ".join(row.attachments) or "none",
        f"{row.matched} ({row.matched_by_text})",
        ", ".join(row.skipped) or "none",
        ", ".join(row.unanswered) or "none",
        row.extra,
        row.source,
    )


def provenance_markdown(rows: list[ProvenanceRow]) -> list[str]:
    if not rows:
        return []
    return [
        "## Provenance of ingested conversations",
        "",
        "These conversations were collected outside the harness and ingested with `medeval ingest`; the "
        "judges coded them as they code a live run. Matched: user turns matched to a scripted turn (of "
        "them, by question text rather than turn id); skipped scripted turns were never asked (their "
        "groups count as incomplete data); extra turns are kept verbatim in the transcript.",
        "",
        *table(HEADER, [cells(row) for row in rows]),
    ]

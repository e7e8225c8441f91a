"""`medeval ingest`: conversations collected outside the harness (a consumer app, a website's
assistant, a transcribed counselor call) become a normal run directory, coded by the same judges
through the same judging path as a live run and `medeval rescore`, with no target call.

The target is `ingested:<product>`. Every file is parsed and matched before anything is written
(plan.py); the run directory is then written whole, or removed if writing it fails part-way, so an
ingestion never leaves half a run behind."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from medeval.calls.batching import TrialSlot
from medeval.calls.gateway import Gateway
from medeval.engine.config import RunConfig
from medeval.engine.ingest.plan import Planned, plan_ingest
from medeval.engine.judging import judge_conversation
from medeval.engine.orchestrator import (
    RunResult,
    build_manifest,
    check_roles,
    create_store,
    load_scenarios,
)
from medeval.engine.panel import checked_gateway, judge_each, open_writer, panel_specs
from medeval.engine.progress import QuietProgress, RunProgress
from medeval.engine.runwriter import RunStorageFailed, Writer
from medeval.engine.trial import trial_context
from medeval.engine.types import TrialPlan
from medeval.records.storage import run_lock, utc_now
from medeval.schemas import INGESTED, Provenance, TargetInfo, TrialRecord

__all__ = ["INGESTED", "ingest", "ingested_target"]


def ingested_target(product: str) -> str:
    return f"{INGESTED}:{product}"


def manifest_entry(
    defaults: Provenance, files: list[dict[str, object]], planned: list[Planned]
) -> dict[str, Any]:
    """What the manifest records of an ingestion: the run-wide provenance, the files by hash, and
    each conversation's own provenance and matching (what the report's provenance section shows)."""
    return {
        "provenance": defaults.model_dump(mode="json"),
        "files": files,
        "conversations": [
            {
                "conversation_id": p.source.conversation_id,
                "scenario_id": p.loaded.scenario.scenario_id,
                "file": p.source.file,
                "line": p.source.line,
                "provenance": p.source.provenance.model_dump(mode="json"),
                "matched": len(p.source.matched),
                "matched_by_text": len([m for m in p.source.matched if m.by == "text"]),
                "skipped": p.source.skipped,
                "unanswered": p.source.unanswered,
                "extra": len({e.turn_id for e in p.source.extra}),
            }
            for p in planned
        ],
    }


async def execute_ingest(
    files: list[Path], config: RunConfig, defaults: Provenance, progress: RunProgress
) -> tuple[RunResult, list[Planned]]:
    scenarios = load_scenarios(config.scenarios)
    planned, recorded = plan_ingest(files, scenarios, defaults)
    check_roles(config)
    judges = panel_specs(config)
    gateway = checked_gateway(config, judges)
    store = create_store(config.out)
    try:
        with run_lock(store.directory):
            manifest = build_manifest(config, store, scenarios, gateway, model_specs=judges)
            manifest["ingest"] = manifest_entry(defaults, recorded, planned)
            writer = open_writer(store, manifest, gateway, progress, resumable=False)
            records = await _judge_all(config, gateway, planned, writer, manifest["ingest"])
            if writer.failure is not None:
                raise RunStorageFailed(store.directory, writer.failure, written=0, resumable=False)
    except BaseException:
        # All or nothing: a half-written ingestion is removed (run it again; judge answers are cached).
        shutil.rmtree(store.directory, ignore_errors=True)
        raise
    records.sort(key=lambda r: r.trial_id)
    return RunResult(store, records, "complete", failures=gateway.failures.lines()), planned


async def _judge_all(
    config: RunConfig, gateway: Gateway, planned: list[Planned], writer: Writer, entry: dict[str, Any]
) -> list[TrialRecord]:
    slots = asyncio.Semaphore(config.max_concurrency)
    records: list[TrialRecord] = []
    store = writer.store
    target = config.targets[0]

    async def one(index: int, item: Planned) -> None:
        loaded, source = item.loaded, item.source
        plan = TrialPlan(loaded.scenario, loaded.sha256, target, item.epoch)
        trial_id = f"{store.run_id}-t{index:05d}"
        version = source.provenance.product_version
        info = TargetInfo(
            spec=target,
            provider=INGESTED,
            requested_model=source.provenance.product,
            served_models=[version] if version else [],
        )
        async with TrialSlot(slots):
            if writer.failure is not None:
                return
            judged = await judge_conversation(
                plan,
                config,
                gateway,
                trial_context(plan, store.run_id, trial_id),
                item.matched.conversation,
                info,
                served_mismatch=False,
                unscored=[],
                started=utc_now(),
            )
            record = judged.model_copy(update={"ingest": source})
            if writer.trial(record):
                records.append(record)

    trials = [one(i, p) for i, p in enumerate(planned, start=1)]
    await judge_each(writer, gateway, trials, extra={"ingest": {"conversations": len(planned)}})
    return records


def ingest(
    files: list[Path],
    config: RunConfig,
    defaults: Provenance,
    *,
    progress: RunProgress | None = None,
) -> tuple[RunResult, list[Planned]]:
    """Parse, match, judge and write; UserError (one line per problem) before anything is written."""
    return asyncio.run(execute_ingest(files, config, defaults, progress or QuietProgress()))

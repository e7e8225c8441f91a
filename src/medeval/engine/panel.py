"""What the runs that call no target share (rescore, ingest, calibrate, the bias probes): the judging
panel's models, checked before the first call, and the writing of a run judged from stored answers."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from typing import Any

from medeval.calls.gateway import CallSink, Gateway
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import NOT_A_MODEL, build_gateway
from medeval.engine.progress import RunProgress
from medeval.engine.runwriter import RunStorageFailed, Writer
from medeval.records.storage import RunStore, StorageError


def judge_specs(config: RunConfig) -> list[str]:
    """The panel's judges, one spec per seat (a judge named once sits `judge_count` times)."""
    return [config.judge_spec(i) for i in range(config.judge_count)]


def panel_specs(config: RunConfig) -> list[str]:
    """Every model a judging-only run may call: the judges, the extractor and any adjudicator."""
    specs = [*judge_specs(config), config.extractor_spec()]
    if config.adjudicator:
        specs.append(config.adjudicator)
    return specs


def checked_gateway(config: RunConfig, specs: Iterable[str], sink: CallSink | None = None) -> Gateway:
    """The gateway, with each of `specs` resolved: a missing key or an unknown judge stops here,
    before any call or file."""
    gateway = build_gateway(config, sink)
    for spec in specs:
        if spec not in NOT_A_MODEL:
            gateway.adapter(spec)
    return gateway


def open_writer(
    store: RunStore, manifest: dict[str, Any], gateway: Gateway, progress: RunProgress, *, resumable: bool
) -> Writer:
    """Write the new run's manifest and first checkpoint, then record every call through a Writer."""
    try:
        store.write_manifest(manifest)
        store.write_checkpoint()
    except StorageError as error:
        raise RunStorageFailed(store.directory, error, written=0, resumable=resumable) from None
    writer = Writer(store, progress)
    gateway.set_sink(writer.call)
    return writer


async def judge_each(
    writer: Writer, gateway: Gateway, trials: list[Coroutine[Any, Any, None]], extra: dict[str, Any]
) -> None:
    """Judge every trial at once; whatever happens, the gateway closes and the summary is written
    with the outcome (`extra` joins it)."""
    writer.progress.start(len(trials), 0)
    outcome = "interrupted"
    try:
        await asyncio.gather(*trials)
        outcome = "storage" if writer.failure else "complete"
    finally:
        writer.progress.stop()
        await gateway.aclose()
        writer.finish(len(trials), outcome, extra=extra)

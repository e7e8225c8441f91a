"""The resume warning after a kill mid-submission counts exactly the requests sent again: an
interrupted request whose trial is never judged again is not counted, and one that two interrupted
submissions shared counts once."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from medeval.adapters.base import ChatRequest, Message
from medeval.adapters.batch import BatchItem
from medeval.adapters.retry import RetryPolicy
from medeval.calls.batching import BatchSettings
from medeval.calls.batching.batcher import Batcher, BatchResubmitWarning
from medeval.fakes.provider import FakeJudge
from medeval.records.batch_events import unanswered_submissions
from tests.engine_support import settle


def items(*ids: str) -> list[BatchItem]:
    request = ChatRequest(system="", messages=[Message(role="user", content="q")])
    return [BatchItem(custom_id=i, request=request) for i in ids]


def test_the_warning_counts_only_requests_actually_sent_again_once_each() -> None:
    events: list[dict[str, object]] = []
    batcher = Batcher(BatchSettings(enabled=True), events.append, sleep=settle, retry=RetryPolicy(), seed=1)
    # Two interrupted submissions (a kill, a resume, another kill) that shared "b".
    lines = [
        {"event": "batch_submitting", "spec": "fake:judge", "custom_ids": ["a", "b"]},
        {"event": "batch_submitting", "spec": "fake:judge", "custom_ids": ["b", "c"]},
    ]
    unanswered = unanswered_submissions(lines)
    assert sorted(unanswered["fake:judge"]) == ["a", "b", "b", "c"]
    batcher.warn_unanswered(unanswered)
    judge = FakeJudge("judge")
    with pytest.warns(BatchResubmitWarning) as caught:
        # "c" belongs to a trial already written: it is never requested again.
        asyncio.run(batcher._submit("fake:judge", judge, items("a", "b", "new")))
    assert len(caught) == 1
    assert str(caught[0].message).startswith("2 judge request(s) were being submitted to fake:judge")
    assert "these 2 are paid twice" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchResubmitWarning)
        # Sent again a second time (a retry in a later batch): already counted, no new warning.
        asyncio.run(batcher._submit("fake:judge", judge, items("a", "other")))

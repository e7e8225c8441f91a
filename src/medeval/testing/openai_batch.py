"""The OpenAI Batch API for the loopback server: `POST /v1/files` (multipart, purpose "batch"),
`POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/files/{id}/content`; everything else goes
to the plain OpenAI dialect. A `BatchDesk` decides how batches complete:

    desk = BatchDesk(hold=True)                 # batches stay in_progress until released
    with LoopbackServer(openai_batch_dialect(desk)) as server:
        ...
        desk.release()                          # now they complete (on the next status read)

`fail` (custom id -> HTTP status) and `fail_matching` (text in the request) answer those items
with an error in the error file; `expire` (custom ids) and `expire_next` (the next N items, once)
leave them out of the output, as an expired batch does (error code batch_expired, and the batch
ends "expired")."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from medeval.testing.openai_dialect import OPENAI, openai_error_body
from medeval.testing.wire import Dialect, ReceivedRequest, Reply, Server

CREATED = 1_790_000_000


@dataclass
class BatchDesk:
    hold: bool = False
    fail: dict[str, int] = field(default_factory=dict)
    expire: set[str] = field(default_factory=set)
    #: The next N items answered are expired instead (each once: sent again, they succeed).
    expire_next: int = 0
    #: Items whose request body contains this text fail with a 500, every time.
    fail_matching: str | None = None
    #: Called with the custom ids of each batch as it is created (tests count submissions).
    on_create: Callable[[list[str]], object] | None = None
    #: Called with the batch id on each status read (a client reads only what it has recorded).
    on_retrieve: Callable[[str], object] | None = None
    files: dict[str, str] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Custom ids of each created batch, in order.
    created: list[list[str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def release(self) -> None:
        with self._lock:
            self.hold = False


def openai_batch_dialect(desk: BatchDesk) -> Dialect:
    async def handle(request: ReceivedRequest, server: Server) -> Reply:
        path = request.path.removeprefix("/v1")
        if request.method == "POST" and path == "/files":
            return _upload(desk, request)
        if request.method == "POST" and path == "/batches":
            return _create(desk, request)
        if request.method == "GET" and path.startswith("/batches/"):
            return await _retrieve(desk, server, path.removeprefix("/batches/"))
        if request.method == "GET" and path.startswith("/files/") and path.endswith("/content"):
            file_id = path.removeprefix("/files/").removesuffix("/content")
            if file_id not in desk.files:
                return Reply(status=404, body=openai_error_body(404, f"No such File object: {file_id}"))
            return Reply(text=desk.files[file_id], headers={"content-type": "application/octet-stream"})
        return await OPENAI.handle(request, server)

    return Dialect("openai-batch", handle, openai_error_body)


def _upload(desk: BatchDesk, request: ReceivedRequest) -> Reply:
    """The JSONL part of a multipart upload (the SDK sends `file` and `purpose`)."""
    text = request.body if isinstance(request.body, str) else ""
    boundary = request.headers.get("content-type", "").partition("boundary=")[2].strip('"')
    content = None
    for part in text.split(f"--{boundary}") if boundary else []:
        head, _, value = part.partition("\r\n\r\n")
        if 'name="file"' in head:
            content = value.removesuffix("\r\n")
    if content is None:
        return Reply(status=400, body=openai_error_body(400, "no file in the upload"))
    with desk._lock:
        file_id = f"file-{len(desk.files) + 1:04d}"
        desk.files[file_id] = content
    return Reply(
        body={
            "id": file_id,
            "object": "file",
            "bytes": len(content.encode("utf-8")),
            "created_at": CREATED,
            "filename": "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }
    )


def _create(desk: BatchDesk, request: ReceivedRequest) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    file_id = str(body.get("input_file_id"))
    if file_id not in desk.files:
        return Reply(status=400, body=openai_error_body(400, f"input file {file_id} not found"))
    lines = [json.loads(line) for line in desk.files[file_id].splitlines() if line.strip()]
    ids = [str(line["custom_id"]) for line in lines]
    if len(set(ids)) != len(ids):
        return Reply(status=400, body=openai_error_body(400, "custom_id values must be unique in a batch"))
    if any(line.get("url") != body.get("endpoint") for line in lines):
        return Reply(status=400, body=openai_error_body(400, "every line's url must match the endpoint"))
    with desk._lock:
        batch_id = f"batch_{len(desk.batches) + 1:04d}"
        desk.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint"),
            "errors": None,
            "input_file_id": file_id,
            "completion_window": body.get("completion_window"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": CREATED,
            "request_counts": {"total": len(ids), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        desk.created.append(ids)
    if desk.on_create is not None:
        desk.on_create(ids)
    return Reply(body=desk.batches[batch_id])


async def _retrieve(desk: BatchDesk, server: Server, batch_id: str) -> Reply:
    batch = desk.batches.get(batch_id)
    if batch is None:
        return Reply(status=404, body=openai_error_body(404, f"No such Batch object: {batch_id}"))
    if desk.on_retrieve is not None:
        desk.on_retrieve(batch_id)
    if batch["status"] == "validating":
        batch["status"] = "in_progress"
    elif batch["status"] == "in_progress" and not desk.hold:
        await _complete(desk, server, batch)
    return Reply(body=batch)


async def _complete(desk: BatchDesk, server: Server, batch: dict[str, Any]) -> None:
    """Answer every line through the plain dialect, as the direct endpoint would."""
    outputs, errors = [], []
    lines = [json.loads(line) for line in desk.files[batch["input_file_id"]].splitlines() if line.strip()]
    for number, line in enumerate(lines, start=1):
        custom_id = str(line["custom_id"])
        expiring = desk.expire_next > 0
        desk.expire_next -= expiring
        if custom_id in desk.expire or expiring:
            errors.append(
                _line(number, custom_id, None, {"code": "batch_expired", "message": "not done in time"})
            )
            continue
        matched = desk.fail_matching is not None and desk.fail_matching in json.dumps(line["body"])
        if custom_id in desk.fail or matched:
            status = desk.fail.get(custom_id, 500)
            body = openai_error_body(status, f"injected {status} for {custom_id}")
            errors.append(_line(number, custom_id, {"status_code": status, "body": body}, None))
            continue
        item = ReceivedRequest(
            index=number, method="POST", path=str(line["url"]), query="", headers={}, body=line["body"]
        )
        reply = await OPENAI.handle(item, server)
        outputs.append(_line(number, custom_id, {"status_code": reply.status, "body": reply.body}, None))
    with desk._lock:
        for name, rows in (("output_file_id", outputs), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{len(desk.files) + 1:04d}"
                desk.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows)
                batch[name] = file_id
        expired = any((e.get("error") or {}).get("code") == "batch_expired" for e in errors)
        batch["status"] = "expired" if expired else "completed"
        batch["request_counts"] = {"total": len(lines), "completed": len(outputs), "failed": len(errors)}


def _line(
    number: int, custom_id: str, response: dict[str, Any] | None, error: dict[str, str] | None
) -> dict[str, Any]:
    if response is not None:
        response = {**response, "request_id": f"req_batch_{number:06d}"}
    return {"id": f"batch_req_{number:06d}", "custom_id": custom_id, "response": response, "error": error}

"""The loopback fake server itself: schedules, seeded fault rates, counters and redaction."""

from __future__ import annotations

import asyncio

import httpx2

from medeval.testing.loopback import Fault, LoopbackServer


async def _post(url: str, n: int, headers: dict[str, str] | None = None) -> list[int]:
    async with httpx2.AsyncClient() as client:
        replies = await asyncio.gather(
            *(
                client.post(
                    url, json={"model": "m", "messages": [{"role": "user", "content": "q"}]}, headers=headers
                )
                for _ in range(n)
            )
        )
    return [r.status_code for r in replies]


def test_seeded_fault_rate_is_reproducible_and_counted() -> None:
    outcomes = []
    for _ in range(2):
        with LoopbackServer(fault_rate=0.3, rate_faults=[Fault.server_error(503)], seed=11) as server:
            statuses = asyncio.run(_post(server.base_url + "/chat/completions", 40))
            assert server.request_count == 40 == len(server.requests)
            outcomes.append(sorted(statuses))
    assert outcomes[0] == outcomes[1]
    assert 0 < outcomes[0].count(503) < 40


def test_schedule_applies_in_order_with_retry_after() -> None:
    with LoopbackServer(faults=[Fault.rate_limited("3"), Fault.overloaded()]) as server:

        async def sequential() -> list[httpx2.Response]:
            async with httpx2.AsyncClient() as client:
                return [await client.post(server.base_url + "/chat/completions", json={}) for _ in range(3)]

        first, second, third = asyncio.run(sequential())
    assert (first.status_code, first.headers["retry-after"]) == (429, "3")
    assert second.status_code == 529
    assert third.status_code == 200


def test_keys_are_redacted_in_the_request_record() -> None:
    secret = "sk-loopback-secret-123"
    with LoopbackServer(api_key=secret) as server:
        asyncio.run(
            _post(server.base_url + "/chat/completions", 1, {"x-api-key": secret, "x-custom": secret})
        )
        record = server.requests[0]
        assert record.key_header in ("x-api-key", "x-custom")
        assert secret not in record.model_dump_json()
        assert record.headers["x-api-key"] == "<redacted>"


def test_missing_key_is_401() -> None:
    with LoopbackServer(api_key="expected") as server:
        assert asyncio.run(_post(server.base_url + "/chat/completions", 1)) == [401]


def test_clear_and_keep_requests_off() -> None:
    with LoopbackServer(keep_requests=False, faults=[Fault.server_error(500)] * 3) as server:
        server.clear()  # drops the pending faults too
        assert asyncio.run(_post(server.base_url + "/chat/completions", 5)) == [200] * 5
        assert server.request_count == 5 and server.requests == []


def test_unknown_route_is_404_in_the_dialect_error_shape() -> None:
    with LoopbackServer() as server:

        async def get() -> httpx2.Response:
            async with httpx2.AsyncClient() as client:
                return await client.post(server.base_url + "/embeddings", json={})

        reply = asyncio.run(get())
    assert reply.status_code == 404 and "no route" in reply.json()["error"]["message"]

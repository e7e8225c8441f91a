"""limits.LoopTurns: CPU-heavy steps take turns, one per event-loop iteration, in arrival order, so
the loop polls for I/O between any two of them and a waiter that leaves never blocks the rest."""

from __future__ import annotations

import asyncio

import pytest

from medeval.calls.limits import LoopTurns


async def ticker(ticks: list[int], stop: asyncio.Event) -> None:
    """Other work on the loop: one tick per iteration it gets."""
    while not stop.is_set():
        ticks.append(len(ticks))
        await asyncio.sleep(0)


def test_holders_go_in_arrival_order_with_the_loop_turning_between_them() -> None:
    async def main() -> tuple[list[tuple[str, str, int]], list[int]]:
        turns, stop = LoopTurns(), asyncio.Event()
        events: list[tuple[str, str, int]] = []
        ticks: list[int] = []

        async def step(name: str) -> None:
            async with turns:
                events.append(("in", name, len(ticks)))
                events.append(("out", name, len(ticks)))

        other = asyncio.create_task(ticker(ticks, stop))
        await asyncio.sleep(0)
        await asyncio.gather(*(step(name) for name in "abcd"))
        stop.set()
        await other
        return events, ticks

    events, _ = asyncio.run(main())
    assert [name for kind, name, _ in events if kind == "in"] == list("abcd")
    # Never two holders at once, and the other task ran between every two of them.
    assert [kind for kind, _, _ in events] == ["in", "out"] * 4
    outs = [tick for kind, _, tick in events if kind == "out"]
    ins = [tick for kind, _, tick in events if kind == "in"]
    assert all(later > earlier for earlier, later in zip(outs, ins[1:], strict=False))


def test_without_turns_the_same_steps_run_back_to_back() -> None:
    """The control: plain tasks run in one loop iteration, with no other work between them."""

    async def main() -> list[int]:
        seen: list[int] = []
        ticks: list[int] = []
        stop = asyncio.Event()

        async def step() -> None:
            seen.append(len(ticks))

        other = asyncio.create_task(ticker(ticks, stop))
        await asyncio.sleep(0)
        await asyncio.gather(*(step() for _ in range(4)))
        stop.set()
        await other
        return seen

    assert len(set(asyncio.run(main()))) == 1


def test_a_waiter_cancelled_in_line_and_a_holder_that_raises_leave_the_turns_working() -> None:
    async def main() -> list[str]:
        turns = LoopTurns()
        done: list[str] = []
        entered = asyncio.Event()

        async def holder() -> None:
            async with turns:
                entered.set()
                await asyncio.sleep(0)
                raise ValueError("the step failed")

        async def step(name: str) -> None:
            async with turns:
                done.append(name)

        first = asyncio.create_task(holder())
        await entered.wait()
        leaving = asyncio.create_task(step("cancelled"))
        staying = asyncio.create_task(step("after"))
        await asyncio.sleep(0)
        leaving.cancel()
        with pytest.raises(ValueError, match="the step failed"):
            await first
        await staying
        async with turns:  # free again once nobody waits
            done.append("last")
        return done

    assert asyncio.run(main()) == ["after", "last"]

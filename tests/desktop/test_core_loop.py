from __future__ import annotations

import asyncio
import threading

import pytest

from app.desktop.core_loop import CoreLoop


def test_coroutines_run_on_the_single_core_thread(core: CoreLoop) -> None:
    async def where() -> str:
        return threading.current_thread().name

    assert core.run(where(), 5) == "test-core"


def test_a_slow_coroutine_times_out_and_is_cancelled(core: CoreLoop) -> None:
    cancelled = threading.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError):
        core.run(slow(), 0.05)
    assert cancelled.wait(5)


def test_stop_cancels_leftover_tasks_and_joins_the_thread() -> None:
    core = CoreLoop()
    loop = core.start()
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def spawn() -> None:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.sleep(0)

    core.run(spawn(), 5)
    assert core.stop()
    assert cancelled.is_set()
    assert loop.is_closed()
    assert not core.thread.is_alive()

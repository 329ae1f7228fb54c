"""The desktop's one core thread: an asyncio loop that owns all agent, store and provider work.

The Qt GUI owns the main thread; everything async runs here and is reached from other threads
with `run_coroutine_threadsafe` (docs/architecture.md, "Threads and loops").
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class CoreLoop:
    def __init__(self, name: str = "cashcode-core") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def start(self) -> asyncio.AbstractEventLoop:
        self._thread.start()
        return self._loop

    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float) -> T:
        """Run `coro` on the core loop and wait for it from the calling (non-core) thread.

        Raises TimeoutError (after cancelling the coroutine) when it does not finish in time.
        """
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout_s)
        except TimeoutError:
            future.cancel()
            raise

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Cancel leftover tasks, stop the loop and join the thread. False if it hung."""
        if not self._thread.is_alive():
            return True
        try:
            self.run(self._cancel_leftovers(), timeout_s)
        except TimeoutError:
            log.warning("core tasks did not finish cancelling within %.1fs", timeout_s)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            try:
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            finally:
                self._loop.close()

    @staticmethod
    async def _cancel_leftovers() -> None:
        current = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

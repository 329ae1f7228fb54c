"""Subprocess program for bench/bench_desktop.py: the real desktop shell (bridge, pusher, Qt)
with a stand-in app that publishes timestamped deltas at a fixed rate, and a framework-free
page (static/latency.html). Isolates the shell's share of server-to-screen latency.

Usage: python -m tests.desktop.latency_probe
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.contracts.events import Delta
from app.core.bus import EventBus
from app.desktop.main import run
from app.settings.paths import AppPaths

PAGE = Path(__file__).parent / "static" / "latency.html"


class LatencyApp:
    def __init__(self) -> None:
        self.bus = EventBus()
        self.sent: list[float] = []
        self.done = asyncio.Event()

    def register_route(self, name: str, handler: Callable[..., Any]) -> None:
        pass

    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        if route == "bench.stream":
            self.sent = []
            asyncio.get_running_loop().create_task(
                self._stream(float(payload["rate"]), int(payload["count"]))
            )
            return {"ok": True, "data": {}}
        if route == "bench.sent":
            return {"ok": True, "data": {"sent": self.sent}}
        return {"ok": False, "error": {"code": "not_found", "message": route, "details": {}}}

    async def _stream(self, rate: float, count: int) -> None:
        start = time.monotonic()
        for i in range(count):
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.sent.append(time.time())
            self.bus.publish(Delta(chat_id="c", turn_id="t", text=f"t{i:04d} "))

    async def aclose(self) -> None:
        pass


def main() -> int:
    def factory(paths: AppPaths, env: Any) -> LatencyApp:
        return LatencyApp()

    return run([], app_factory=factory, index=PAGE)


if __name__ == "__main__":
    sys.exit(main())

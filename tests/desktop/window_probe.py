"""Subprocess program for the real-window test: the real desktop shell (`run`) with a
stand-in app and a static page that drives itself, then closes the window via SIGTERM.

Usage: python -m tests.desktop.window_probe <report.json>
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.contracts.events import Delta, ToolCallEvent
from app.core.bus import EventBus
from app.desktop.main import run
from app.settings.paths import AppPaths

PAGE = Path(__file__).parent / "static" / "probe.html"
TOKENS = [f"t{i}·" for i in range(2000)]


class ProbeApp:
    def __init__(self, report: Path) -> None:
        self.bus = EventBus()
        self._report = report
        self._routes: dict[str, Callable[..., Any]] = {}
        self.closed = False

    def register_route(self, name: str, handler: Callable[..., Any]) -> None:
        self._routes[name] = handler

    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        if route == "echo":
            return {"ok": True, "data": payload}
        if route == "test.stream":
            asyncio.get_running_loop().create_task(self._stream())
            return {"ok": True, "data": {"text": "".join(TOKENS)}}
        if route == "test.report":
            payload["routes"] = sorted(self._routes)
            self._report.write_text(json.dumps(payload), encoding="utf-8")
            os.kill(os.getpid(), signal.SIGTERM)  # close the window the way a session logout does
            return {"ok": True, "data": {}}
        return {"ok": False, "error": {"code": "not_found", "message": f"no route {route}", "details": {}}}

    async def _stream(self) -> None:
        for i, token in enumerate(TOKENS):
            self.bus.publish(Delta(chat_id="c", turn_id="t", text=token))
            if i == 1000:
                tool = ToolCallEvent(chat_id="c", turn_id="t", call_id="k", name="x", arguments="{}")
                self.bus.publish(tool)
            if i % 50 == 0:
                await asyncio.sleep(0.001)

    async def aclose(self) -> None:
        self.closed = True
        with self._report.with_suffix(".closed").open("w") as fh:
            fh.write("closed")


def main() -> int:
    report = Path(sys.argv[1])

    def factory(paths: AppPaths, env: Any) -> ProbeApp:
        return ProbeApp(report)

    return run([], app_factory=factory, index=PAGE)


if __name__ == "__main__":
    sys.exit(main())

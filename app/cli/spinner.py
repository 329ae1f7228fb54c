"""A spinner on stderr while a turn waits for the model's first event (a terminal only).

Drawn on the real stream (the sanitiser would show its carriage return), cleared before
anything else is printed; never shown when stderr or stdout is not a terminal (piped output
stays exactly the answer).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TextIO

from app.cli.safe_text import raw_stream

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
INTERVAL_S = 0.1


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Spinner:
    def __init__(self, err: TextIO, *, enabled: bool, label: str = "Thinking…") -> None:
        self._err = raw_stream(err)
        self._enabled = enabled
        self._label = label
        self._task: asyncio.Task[None] | None = None
        self._drawn = False

    @staticmethod
    def wanted(out: TextIO, err: TextIO) -> bool:
        return _is_tty(out) and _is_tty(err)

    def start(self) -> None:
        if self._enabled and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._spin())

    async def _spin(self) -> None:
        frame = 0
        while True:
            self._err.write(f"\r{FRAMES[frame % len(FRAMES)]} {self._label}")
            self._err.flush()
            self._drawn = True
            frame += 1
            await asyncio.sleep(INTERVAL_S)

    def stop(self) -> None:
        """Idempotent: the first event of the turn, or its end, stops it."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._drawn:
            with contextlib.suppress(OSError, ValueError):
                self._err.write("\r" + " " * (len(self._label) + 2) + "\r")
                self._err.flush()
            self._drawn = False

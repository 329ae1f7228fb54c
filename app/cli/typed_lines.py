"""Lines typed at the terminal while `cashcode chat` streams an answer (issue 35 item 4).

While a turn runs, this is the only reader of stdin: it watches the fd with the event loop
(`add_reader`, no thread left reading afterwards, so the prompt's line editor gets every key
typed after the turn) and hands each whole line to whoever waits for one: an approval question
first (`readline`, what TerminalTurn asks with), else `on_line` (queue it, or `/steer TEXT`).
A half-typed line stays in the terminal for the next prompt.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from app.cli.terminal import StdinLines


class TypedLines:
    def __init__(self, lines: StdinLines, on_line: Callable[[str], None]) -> None:
        self._lines = lines
        self._on_line = on_line
        self._waiters: list[asyncio.Future[str | None]] = []
        self._watching = False
        self._eof = False

    def start(self) -> bool:
        """Watch stdin; False where the loop cannot (Windows, or a read already in flight)."""
        if self._lines.reading:
            return False
        try:
            asyncio.get_running_loop().add_reader(self._lines.fd, self._readable)
        except (NotImplementedError, RuntimeError, ValueError, OSError):
            return False
        self._watching = True
        return True

    def stop(self) -> None:
        if self._watching:
            self._watching = False
            asyncio.get_running_loop().remove_reader(self._lines.fd)
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def readline(self) -> str | None:
        """The next whole line (an approval's answer). Without a watch: the plain reader."""
        if not self._watching:
            return await self._lines.readline()
        waiter: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return await waiter

    def _readable(self) -> None:
        try:
            data = os.read(self._lines.fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self._lines.feed(data)
        if not data:  # end of input: nothing more to watch; the prompt sees the end too
            self._eof = True
            asyncio.get_running_loop().remove_reader(self._lines.fd)
            self._watching = False
        while (line := self._lines.take_line()) is not None:
            self._dispatch(line)
        if self._eof:
            for waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def _dispatch(self, line: str) -> None:
        while self._waiters:
            waiter = self._waiters.pop(0)
            if not waiter.done():
                waiter.set_result(line)
                return
        self._on_line(line)

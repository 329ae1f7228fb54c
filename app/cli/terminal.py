"""Async line input from stdin that never blocks the event loop (so Ctrl-C and Stop work).

Each read runs `os.read` in a daemon thread: a pending read never delays process exit, and
the asyncio loop keeps streaming while the user types.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading


class StdinLines:
    def __init__(self, fd: int | None = None) -> None:
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._buffer = b""
        self._eof = False
        self._pending: asyncio.Future[bytes] | None = None

    @staticmethod
    def is_interactive() -> bool:
        try:
            return sys.stdin.isatty()
        except (AttributeError, ValueError):
            return False

    async def readline(self) -> str | None:
        """The next line without its newline; None at end of input."""
        while b"\n" not in self._buffer and not self._eof:
            chunk = await self._read_chunk()
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
        if not self._buffer and self._eof:
            return None
        line, sep, rest = self._buffer.partition(b"\n")
        self._buffer = rest
        return line.decode("utf-8", errors="replace").rstrip("\r")

    async def _read_chunk(self) -> bytes:
        # A read interrupted by cancellation stays pending (its data is kept for the next call).
        if self._pending is None:
            loop = asyncio.get_running_loop()
            future: asyncio.Future[bytes] = loop.create_future()

            def work() -> None:
                try:
                    data = os.read(self._fd, 65536)
                except OSError:
                    data = b""
                loop.call_soon_threadsafe(_settle, future, data)

            threading.Thread(target=work, name="cashcode-stdin", daemon=True).start()
            self._pending = future
        data = await asyncio.shield(self._pending)
        self._pending = None
        return data


def _settle(future: asyncio.Future[bytes], data: bytes) -> None:
    if not future.done():
        future.set_result(data)

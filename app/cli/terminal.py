"""Async line input from stdin that never blocks the event loop (so Ctrl-C and Stop work).

Each read runs `os.read` in a daemon thread: a pending read never delays process exit, and
the asyncio loop keeps streaming while the user types.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Protocol


class LineSource(Protocol):
    """Where an approval question reads its answer line from."""

    async def readline(self) -> str | None: ...


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

    @property
    def fd(self) -> int:
        return self._fd

    @property
    def reading(self) -> bool:
        """A read thread is in flight (its data will land here): nobody else may read the fd."""
        return self._pending is not None

    def feed(self, data: bytes) -> None:
        """Bytes read from the fd by someone else (TypedLines, while a turn runs); b"": end."""
        if data:
            self._buffer += data
        else:
            self._eof = True

    def take_line(self) -> str | None:
        """A whole line already read, if any (never reads)."""
        if b"\n" not in self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
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

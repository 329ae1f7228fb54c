"""The one-slot mode (`FakeLLMServer(one_slot=True)`): like llama.cpp's server with a single
slot, a new model request interrupts the one still being answered; the earlier stream is cut
short and its recorded request says `interrupted` (issue 34)."""

from __future__ import annotations

import asyncio


class OneSlot:
    """The answer in progress; `begin` hands each model request the event that cuts it."""

    def __init__(self) -> None:
        self._running: dict[int, asyncio.Event] = {}

    def begin(self, rec: int) -> asyncio.Event:
        for cut in self._running.values():
            cut.set()
        self._running.clear()
        cut = asyncio.Event()
        self._running[rec] = cut
        return cut

    def end(self, rec: int) -> None:
        self._running.pop(rec, None)

"""How many model calls run at once against one provider, and background work yielding to the
user's turns (issue 34; decision 307).

A local server has few generation slots: llama.cpp's server interrupts the running request when
a new one arrives, Ollama queues it. Either way a background call (a consolidation summary,
Dream, the skill evolver) running when the user sends a message would cost the turn: killed and
retried (ping-pong) or waited for whole. So, per provider with a finite limit:

- a model call takes one of `limit` slots; a turn's calls (foreground) come before background
  ones;
- while a turn of this provider runs (tool steps between its calls included) no background call
  starts, and one running when the turn starts is cancelled (its connection closed, so the
  server stops generating) before the turn's first call is sent;
- a cancelled background call is run again from the start once no turn runs. Background calls
  are therefore whole-answer calls: their events are collected and handed over only when the
  answer is complete, so a retry never duplicates output.

Without a limit (remote providers by default) the gate is a pass-through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TypeVar

from app.contracts.provider import ModelInfo, ModelRequest, Provider, ProviderConfig, StreamEvent

T = TypeVar("T")
_log = logging.getLogger(__name__)


class ProviderGate:
    """The slots of one provider. `limit=None`: no limit, nothing waits or is cancelled."""

    def __init__(self, limit: int | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError("a gate's limit is at least 1 (None: no limit)")
        self.limit = limit
        self._busy = 0  # slots in use
        self._turns = 0  # turns of this provider running now
        self._waiting = 0  # foreground calls waiting for a slot
        self._background: set[asyncio.Task[object]] = set()
        self._preempted: set[asyncio.Task[object]] = set()
        self._cond: asyncio.Condition | None = None  # made on first use, on the loop that uses it

    @property
    def limited(self) -> bool:
        return self.limit is not None

    @property
    def turn_running(self) -> bool:
        """A turn of this provider runs or waits for a slot (background work would wait)."""
        return self.limited and (self._turns > 0 or self._waiting > 0)

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    def _free(self) -> bool:
        return self.limit is None or self._busy < self.limit

    def _preempt(self) -> None:
        for task in self._background:
            if task not in self._preempted:
                self._preempted.add(task)
                _log.debug("a background model call yields to a turn: cancelled, to be run again")
                task.cancel()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Held for a whole turn: background calls stay out until it ends."""
        if not self.limited:
            yield
            return
        cond = self._condition()
        async with cond:
            self._turns += 1
            self._preempt()
        try:
            yield
        finally:
            async with cond:
                self._turns -= 1
                cond.notify_all()

    @asynccontextmanager
    async def foreground(self) -> AsyncIterator[None]:
        """One slot for one foreground call; a background call holding the last slot is
        cancelled (and waited for) first."""
        if not self.limited:
            yield
            return
        cond = self._condition()
        async with cond:
            self._waiting += 1
            try:
                if not self._free():
                    self._preempt()
                await cond.wait_for(self._free)
            finally:
                self._waiting -= 1
            self._busy += 1
        try:
            yield
        finally:
            async with cond:
                self._busy -= 1
                cond.notify_all()

    async def background(self, run: Callable[[], Awaitable[T]]) -> T:
        """Run `run()` in a slot when no turn runs or waits; cancelled for a turn, it is run
        again from the start once the turns are over."""
        if not self.limited:
            return await run()
        cond = self._condition()
        while True:
            async with cond:
                await cond.wait_for(lambda: self._turns == 0 and self._waiting == 0 and self._free())
                self._busy += 1
                task: asyncio.Task[T] = asyncio.ensure_future(run())
                self._background.add(task)
            try:
                return await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                cancelled_here = current is not None and current.cancelling() > 0
                if task not in self._preempted or cancelled_here:
                    raise  # the caller itself was cancelled (app closing): no retry
            finally:
                self._background.discard(task)
                self._preempted.discard(task)
                async with cond:
                    self._busy -= 1
                    cond.notify_all()


class GatedProvider:
    """A provider seen through its gate: each `stream` call takes a slot, as a foreground
    (turn) call or as a background one. The background view collects the whole answer first
    (see the module docstring)."""

    def __init__(self, inner: Provider, gate: ProviderGate, *, background: bool = False) -> None:
        self.inner = inner
        self.gate = gate
        self.config: ProviderConfig = inner.config
        self._background = background

    def as_background(self) -> GatedProvider:
        return GatedProvider(self.inner, self.gate, background=True)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        if self._background:
            for event in await self.gate.background(lambda: _collect(self.inner, request)):
                yield event
            return
        async with self.gate.foreground():
            async for event in self.inner.stream(request):
                yield event

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _collect(provider: Provider, request: ModelRequest) -> list[StreamEvent]:
    stream = provider.stream(request)
    try:
        return [event async for event in stream]
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()  # on cancellation too: the HTTP stream is closed before the slot is freed


def turn_scope(provider: Provider) -> AbstractAsyncContextManager[None]:
    """What a turn holds for its whole run (nothing for an ungated provider)."""
    if isinstance(provider, GatedProvider):
        return provider.gate.turn()
    return nullcontext()

"""Runs eval cases one at a time through the app API (a fresh chat per case) and checks the
final answer locally: exact, contains, regex, tools_called (order-free)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.contracts.events import (
    AppEvent,
    ApprovalRequired,
    ToolResultEvent,
    TurnCancelled,
    TurnDone,
    TurnFailed,
)
from app.observability.evals_file import EvalCase, Expectation

CASE_TIMEOUT_S = 600.0
_PREVIEW = 80


class EvalApp(Protocol):
    async def invoke(self, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def subscribe(self, callback: Callable[[AppEvent], None]) -> Callable[[], None]: ...


@dataclass(frozen=True)
class CaseResult:
    name: str
    passed: bool
    reasons: tuple[str, ...]  # why it failed (empty when it passed)
    duration_ms: float
    tools_called: tuple[str, ...] = ()


@dataclass
class _Turn:
    chat_id: str
    tools: list[str] = field(default_factory=list)
    end: asyncio.Future[AppEvent] | None = None
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)  # held until done (no GC)


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def check(expect: Expectation, answer: str, tools: Sequence[str]) -> list[str]:
    """The failed expectations, one reason each (all are checked: a case shows every miss)."""
    reasons: list[str] = []
    if expect.exact is not None and answer.strip() != expect.exact.strip():
        reasons.append(f"exact: expected {_preview(expect.exact)!r}, got {_preview(answer)!r}")
    missing = [s for s in expect.contains if s not in answer]
    if missing:
        reasons.append("contains: missing " + ", ".join(repr(s) for s in missing))
    if expect.regex is not None and re.search(expect.regex, answer) is None:
        reasons.append(f"regex: no match for /{expect.regex}/ in {_preview(answer)!r}")
    if expect.tools_called is not None:
        absent = [t for t in expect.tools_called if t not in tools]
        if absent:
            called = ", ".join(sorted(set(tools))) or "none"
            reasons.append(f"tools_called: not called {', '.join(absent)} (called: {called})")
    return reasons


async def run_case(app: EvalApp, case: EvalCase, model: dict[str, str] | None) -> CaseResult:
    """One case in its own chat, deleted afterwards. Calls that need an approval are refused as
    unattended (nobody to ask; the model is told so) and do not count as called."""
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    created = await app.invoke("chats.create", {})
    if not created["ok"]:
        return CaseResult(case.name, False, (f"could not start: {created['error']['message']}",), 0.0)
    turn = _Turn(chat_id=created["data"]["id"], end=loop.create_future())
    unsubscribe = app.subscribe(lambda event: _on_event(app, turn, event))
    try:
        payload: dict[str, Any] = {"chat_id": turn.chat_id, "text": case.prompt}
        if model is not None:
            payload["model"] = model
        sent = await app.invoke("chat.send", payload)
        if not sent["ok"]:
            reason = f"could not send: {sent['error']['message']}"
            return CaseResult(case.name, False, (reason,), _ms(started))
        assert turn.end is not None
        end = await asyncio.wait_for(turn.end, CASE_TIMEOUT_S)
    except TimeoutError:
        await app.invoke("chat.cancel", {"chat_id": turn.chat_id})
        return CaseResult(case.name, False, (f"no answer within {CASE_TIMEOUT_S:.0f} s",), _ms(started))
    finally:
        unsubscribe()
    await app.invoke("chats.delete", {"chat_id": turn.chat_id})
    tools = tuple(turn.tools)
    if isinstance(end, TurnFailed):
        return CaseResult(case.name, False, (f"the turn failed: {end.error.message}",), _ms(started), tools)
    if not isinstance(end, TurnDone):
        return CaseResult(case.name, False, ("the turn was cancelled",), _ms(started), tools)
    reasons = check(case.expect, end.text, tools)
    return CaseResult(case.name, not reasons, tuple(reasons), _ms(started), tools)


def _on_event(app: EvalApp, turn: _Turn, event: AppEvent) -> None:
    if getattr(event, "chat_id", None) != turn.chat_id or turn.end is None:
        return
    if isinstance(event, ToolResultEvent) and not event.denied:  # a refused call was not called
        turn.tools.append(event.name)
    elif isinstance(event, ApprovalRequired):
        answer = {"approval_id": event.approval_id, "decision": "deny", "unattended": True}
        task = asyncio.get_running_loop().create_task(app.invoke("chat.approve", answer))
        turn.tasks.add(task)
        task.add_done_callback(turn.tasks.discard)
    elif isinstance(event, TurnDone | TurnFailed | TurnCancelled) and not turn.end.done():
        turn.end.set_result(event)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)

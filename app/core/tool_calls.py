"""Runs the tool calls of one model response: prepare → approve → execute, in parallel.

Results come back in call order as `tool` messages. Every failure of a single call becomes an
error result for the model (the turn goes on); only cancellation escapes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from app.contracts.checkpoint import TurnProgress, WaitingCall
from app.contracts.events import ToolCallEvent, ToolResultEvent
from app.contracts.messages import Message, ToolCall, ToolOutcome
from app.contracts.tool_args import check_known_keys
from app.contracts.tools import ApprovalInfo, GrantKey, PreparedCall, Tool, ToolError, ToolResult
from app.core.approvals import Allow, Answer, Ask, Deny
from app.core.context import LoopDeps
from app.core.progress import ProgressTracker
from app.support.paging import cut_middle

_log = logging.getLogger(__name__)

DENIED_BY_USER = "The user denied this tool call. Do not retry it; continue without it."
ESCALATION_DENIED = (
    "The user did not allow running it without the sandbox. Do not retry it; continue without "
    "what the sandbox blocked, or tell the user what it needs."
)
NOT_ASKED = (
    "This call was not run: it needs the user's approval and no one is here to give it (an"
    " unattended run), so no one was asked. Do not retry it; continue without it."
)
INTERRUPTED = (
    "This call was interrupted: the app ended while it ran (a quit, a crash or a kill), so it "
    "may or may not have finished. It was not run again; check its effect before relying on it."
)
# A model that repeats a call that keeps giving the same result is stuck (one called
# `list_notes {}` 20 times): after this many identical results the call is not run again.
REPEAT_LIMIT = 3


def repeated_call_note(name: str, times: int) -> str:
    return (
        f"Not run again: {name} was called with these exact arguments {times} times in this turn "
        "and returned the same result each time; it will not change. Use the result you already "
        "have, try different arguments or another tool, or answer the user."
    )


def _call_key(call: ToolCall) -> tuple[str, str]:
    """The call's identity: its name and its arguments as canonical JSON (key order ignored)."""
    try:
        return call.name, json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except json.JSONDecodeError:
        return call.name, call.arguments


def truncate_for_model(text: str, limit: int) -> tuple[str, bool]:
    """Cap what the model sees. Paging tools already fit the budget; this net keeps the head
    and the tail (where markers, exit codes and errors are) and says what it left out."""
    return cut_middle(text, limit, what="tool result")


def _error(message: str) -> ToolResult:
    return ToolResult(ok=False, content=f"Error: {message}")


def _outcome(result: ToolResult) -> ToolOutcome:
    return "denied" if result.denied else "ok" if result.ok else "error"


def _parse_arguments(raw: str) -> Mapping[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ToolError(f"the arguments are not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ToolError("the arguments must be a JSON object")
    return value


class ToolCallRunner:
    def __init__(
        self, deps: LoopDeps, chat_id: str, turn_id: str, progress: ProgressTracker | None = None
    ) -> None:
        self._deps = deps
        self._chat_id = chat_id
        self._turn_id = turn_id
        # Where a question's wait is checkpointed (issue 35 item 3); no sink: nothing is written.
        self._progress = progress if progress is not None else ProgressTracker(None)
        # Tools page within the same budget the loop cuts at: one number, handed down.
        ctx = deps.tool_ctx
        self._ctx = (
            ctx
            if ctx.output_budget == deps.max_tool_output_chars
            else replace(ctx, output_budget=deps.max_tool_output_chars)
        )
        # Per turn (one runner per turn): the last result of each distinct call and how many
        # times in a row that call returned it.
        self._repeats: dict[tuple[str, str], tuple[str, int]] = {}

    async def run_all(self, calls: Sequence[ToolCall]) -> list[Message]:
        for call in calls:
            self._deps.emit(
                ToolCallEvent(
                    chat_id=self._chat_id,
                    turn_id=self._turn_id,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                )
            )
        self._progress.new_round()
        # A TaskGroup cancels the siblings when the turn is cancelled (Stop).
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self._run_one(call)) for call in calls]
        return [task.result() for task in tasks]

    async def resume_all(
        self, calls: Sequence[ToolCall], saved: TurnProgress, answers: Mapping[str, Answer]
    ) -> list[Message]:
        """The calls of a turn resumed after a restart (issue 35 item 3): finished results are
        kept (never run again), an answered question takes its answer, a question not answered
        yet is asked again, and a call that was running when the app ended is not repeated.
        `answers` is keyed by approval id."""
        done = {m.tool_call_id: m for m in saved.done if m.tool_call_id}
        waiting = {w.call_id: w for w in saved.waiting}
        self._progress.new_round()
        await self._progress.resumed(list(saved.done))

        async def one(call: ToolCall) -> Message:
            if call.id in done:
                return done[call.id]
            wait = waiting.get(call.id)
            if wait is None:
                return await self._run_one(call, _interrupted)
            answer = answers.get(wait.approval_id)
            if answer is None:
                return await self._run_one(call)
            return await self._run_one(call, lambda: self._answered_result(call, wait, answer))

        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(call)) for call in calls]
        return [task.result() for task in tasks]

    async def _run_one(
        self, call: ToolCall, source: Callable[[], Awaitable[ToolResult]] | None = None
    ) -> Message:
        started = time.perf_counter()
        key = _call_key(call)
        seen = self._repeats.get(key)
        if seen is not None and seen[1] >= REPEAT_LIMIT:
            # A refusal by the loop, not a failure of the tool: marked like a denied call.
            result = ToolResult(ok=False, content=repeated_call_note(call.name, seen[1]), denied=True)
        else:
            result = await (source() if source is not None else self._result_for(call))
            count = seen[1] + 1 if seen is not None and seen[0] == result.content else 1
            self._repeats[key] = (result.content, count)
        content, cut = truncate_for_model(result.content, self._deps.max_tool_output_chars)
        message = Message(
            role="tool",
            content=content,
            tool_call_id=call.id,
            name=call.name,
            history_content=result.history_content,
            tool_outcome=_outcome(result),
        )
        # Checkpointed before it is announced: a client that saw the result may rely on a
        # restart not running the call again.
        await self._progress.finished(message)
        self._deps.emit(
            ToolResultEvent(
                chat_id=self._chat_id,
                turn_id=self._turn_id,
                call_id=call.id,
                name=call.name,
                ok=result.ok,
                output=result.display if result.display is not None else result.content,
                truncated=cut or result.truncated,
                duration_ms=(time.perf_counter() - started) * 1000,
                denied=result.denied,
                sandbox=result.sandbox,
            )
        )
        return message

    async def _result_for(self, call: ToolCall) -> ToolResult:
        tool = self._deps.tools.get(call.name)
        if tool is None:
            return _error(f"unknown tool {call.name!r}")
        ctx = self._ctx
        try:
            arguments = _parse_arguments(call.arguments)
            check_known_keys(tool.parameters, arguments)
            prepared = await tool.prepare(arguments, ctx)
            refusal, sandboxed = await self._approve(tool, prepared, call)
            if refusal is not None:
                return refusal
            if sandboxed:
                prepared = replace(prepared, sandboxed=True)
            result = await tool.execute(prepared, ctx)
            if result.escalation is not None and prepared.sandboxed:
                return await self._escalate(tool, prepared, call, result)
            return result
        except ToolError as exc:
            return _error(str(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # tool executor boundary: a tool bug must not end the turn
            _log.warning("tool %s failed unexpectedly: %s: %s", call.name, type(exc).__name__, exc)
            _log.debug("traceback of the failed tool %s", call.name, exc_info=True)
            return _error(f"the tool failed unexpectedly ({type(exc).__name__}: {exc})")

    async def _escalate(
        self, tool: Tool, prepared: PreparedCall, call: ToolCall, blocked: ToolResult
    ) -> ToolResult:
        """A confined run the sandbox blocked: ask to run it once more without the sandbox."""
        assert blocked.escalation is not None
        answer = await self._ask(call, blocked.escalation, blocked=blocked.content)
        if answer == "deny":
            return replace(blocked, content=f"{blocked.content}\n\n{ESCALATION_DENIED}", escalation=None)
        if answer == "always" and blocked.escalation.grant_key is not None:
            self._deps.ledger.add(blocked.escalation.grant_key, chat_id=self._chat_id or None)
        return await tool.execute(replace(prepared, sandboxed=False), self._ctx)

    async def _approve(
        self, tool: Tool, prepared: PreparedCall, call: ToolCall
    ) -> tuple[ToolResult | None, bool]:
        """(None, sandboxed) when the call may run; otherwise the result telling the model why not."""
        decision = self._deps.policy(tool, prepared)
        if isinstance(decision, Allow):
            return None, decision.sandboxed
        if isinstance(decision, Deny):
            refused = f"Error: this call is not allowed: {decision.message}"
            return ToolResult(ok=False, content=refused, denied=True), False
        assert isinstance(decision, Ask)
        answer = await self._ask(call, decision.info)
        if answer in ("deny", "unattended"):
            told = DENIED_BY_USER if answer == "deny" else NOT_ASKED
            return ToolResult(ok=False, content=told, denied=True), False
        if answer == "always" and decision.info.grant_key is not None:
            self._deps.ledger.add(decision.info.grant_key, chat_id=self._chat_id or None)
        return None, False

    async def _ask(self, call: ToolCall, info: ApprovalInfo, *, blocked: str | None = None) -> Answer:
        """Ask at the gate; the turn's progress is checkpointed before the question is announced
        and the checkpoint forgets the question once it is answered."""
        approval_id = str(uuid.uuid4())
        await self._progress.waiting(call, approval_id, info, blocked=blocked)
        answer = await self._deps.gate.request(
            chat_id=self._chat_id,
            turn_id=self._turn_id,
            call_id=call.id,
            tool=call.name,
            info=info,
            approval_id=approval_id,
        )
        await self._progress.answered(call.id)
        return answer

    async def _answered_result(self, call: ToolCall, wait: WaitingCall, answer: Answer) -> ToolResult:
        """A question answered after a restart: the answer takes effect without asking again (a
        policy that now refuses the call still refuses it)."""
        if answer in ("deny", "unattended"):
            if wait.kind == "escalation":
                return ToolResult(ok=False, content=f"{wait.blocked or ''}\n\n{ESCALATION_DENIED}")
            told = DENIED_BY_USER if answer == "deny" else NOT_ASKED
            return ToolResult(ok=False, content=told, denied=True)
        tool = self._deps.tools.get(call.name)
        if tool is None:
            return _error(f"unknown tool {call.name!r}")
        try:
            arguments = _parse_arguments(call.arguments)
            check_known_keys(tool.parameters, arguments)
            prepared = await tool.prepare(arguments, self._ctx)
            decision = self._deps.policy(tool, prepared)
            if isinstance(decision, Deny):
                refused = f"Error: this call is not allowed: {decision.message}"
                return ToolResult(ok=False, content=refused, denied=True)
            if answer == "always" and wait.grant is not None:
                grant = GrantKey(kind=wait.grant.kind, key=wait.grant.key, workspace=wait.grant.workspace)
                self._deps.ledger.add(grant, chat_id=self._chat_id or None)
            if wait.kind == "escalation":
                prepared = replace(prepared, sandboxed=False)
            return await tool.execute(prepared, self._ctx)
        except ToolError as exc:
            return _error(str(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # tool executor boundary, as in _result_for
            _log.warning("tool %s failed unexpectedly: %s: %s", call.name, type(exc).__name__, exc)
            return _error(f"the tool failed unexpectedly ({type(exc).__name__}: {exc})")


async def _interrupted() -> ToolResult:
    return ToolResult(ok=False, content=f"Error: {INTERRUPTED}")

"""The ReAct loop (SPEC S3.1): model call → tool calls → tool results → model call … until a
final answer or the iteration limit.

The loop only accumulates messages in memory; storing them is the caller's job once the whole
turn succeeded (so failed turns leave nothing behind). A stopped turn keeps what was answered so
far: `partial()` is the storable part (SPEC S3.2).

Iteration limit: when the model still asks for tools after `max_iterations` model calls, the
turn ends *successfully* with a short assistant note instead of failing — the tool work done so
far is kept in history and the user can say "continue".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from app.contracts.checkpoint import TurnProgress
from app.contracts.events import Delta, TurnSteered, UsageEvent
from app.contracts.messages import Message, ToolCall
from app.contracts.provider import (
    ModelRequest,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    UsageReport,
)
from app.core.approvals import Answer
from app.core.context import LoopDeps
from app.core.progress import ProgressTracker
from app.core.replay import replay
from app.core.tool_calls import ToolCallRunner


def iteration_limit_note(limit: int) -> str:
    return (
        f"[Stopped after {limit} model steps without a final answer. "
        'Say "continue" to let me keep going, or raise the step limit in Settings.]'
    )


@dataclass
class ModelReply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: UsageReport | None = None


@dataclass(frozen=True)
class Resumption:
    """A turn going on after a restart from its checkpoint (issue 35 item 3): what it had done
    and the answers given since (by approval id)."""

    saved: TurnProgress
    answers: Mapping[str, Answer]


@dataclass(frozen=True)
class LoopResult:
    messages: list[Message]  # the new messages of this turn, user message first
    final_text: str
    hit_limit: bool = False


class AgentLoop:
    def __init__(
        self,
        deps: LoopDeps,
        *,
        chat_id: str,
        turn_id: str,
        model: str,
        progress: ProgressTracker | None = None,
    ) -> None:
        self._deps = deps
        self._chat_id = chat_id
        self._turn_id = turn_id
        self._model = model
        self._progress = progress if progress is not None else ProgressTracker(None)
        self._tools = ToolCallRunner(deps, chat_id, turn_id, self._progress)
        self._new: list[Message] = []
        self._reply: ModelReply | None = None  # the model call in progress

    def partial(self) -> list[Message]:
        """What a stopped turn stores: the messages so far, user message first, the last answer
        marked `stopped`. Calls without results lose their calls (providers require a result for
        each call). Empty when nothing was answered yet: a turn stopped before any answer stores
        nothing, like a failed one."""
        done = list(self._new)
        if done and done[-1].tool_calls:  # stopped while its tools ran
            done[-1] = done[-1].model_copy(update={"tool_calls": ()})
        if self._reply is not None and self._reply.text:
            done.append(Message(role="assistant", content=self._reply.text))
        done = [m for m in done if m.role != "assistant" or m.content or m.tool_calls]
        if len(done) < 2:
            return []
        if done[-1].role == "assistant":
            done[-1] = done[-1].model_copy(update={"stopped": True})
        else:  # ends with a tool result: the stop mark needs an answer to sit on
            done.append(Message(role="assistant", content="", stopped=True))
        return done

    async def run(
        self, context: Sequence[Message], user: Message, resume: Resumption | None = None
    ) -> LoopResult:
        """`context` is the system prompt plus stored history; `user` the new message.
        `resume`: go on from a checkpoint (its messages start with `user`)."""
        new: list[Message] = [user]
        first = 0
        if resume is not None:
            new, first = list(resume.saved.messages), resume.saved.steps
        self._new = new
        self._progress.track(new)
        self._progress.steps = first
        if resume is not None:
            new.extend(await self._resumed_calls(resume))
        for _ in range(first, self._deps.max_iterations):
            self._progress.steps += 1
            reply = await self._model_call([*context, *new])
            if not reply.tool_calls:
                new.append(Message(role="assistant", content=reply.text))
                if not self._take_steer(new, last=True):
                    return LoopResult(new, reply.text)
                continue  # steered while it answered: the model reads the steer next
            new.append(Message(role="assistant", content=reply.text, tool_calls=tuple(reply.tool_calls)))
            new.extend(await self._tools.run_all(reply.tool_calls))
            self._take_steer(new, last=False)
        if self._deps.steers is not None:
            self._deps.steers.close()
        note = iteration_limit_note(self._deps.max_iterations)
        new.append(Message(role="assistant", content=note))
        return LoopResult(new, note, hit_limit=True)

    def _take_steer(self, new: list[Message], *, last: bool) -> bool:
        """Steer text that arrived during this step becomes one user message after it (several
        joined: providers read one user message between steps). `last`: the step was an answer,
        so with nothing to give the inbox closes now, before any await (no steer is lost)."""
        inbox = self._deps.steers
        if inbox is None:
            return False
        texts = inbox.drain()
        if not texts:
            if last:
                inbox.close()
            return False
        text = "\n\n".join(texts)
        new.append(Message(role="user", content=text, steer=True))
        self._deps.emit(TurnSteered(chat_id=self._chat_id, turn_id=self._turn_id, text=text))
        return True

    async def _resumed_calls(self, resume: Resumption) -> list[Message]:
        """Show what the turn had done (an open chat draws it from the events), then finish the
        calls of its last assistant message."""
        replay(self._deps.emit, self._chat_id, self._turn_id, [*self._new[1:], *resume.saved.done])
        return await self._tools.resume_all(self._new[-1].tool_calls, resume.saved, resume.answers)

    async def _model_call(self, messages: list[Message]) -> ModelReply:
        request = ModelRequest(
            model=self._model,
            messages=tuple(messages),
            tools=tuple(self._deps.tools.specs()),
            stream=self._deps.stream,
        )
        reply = ModelReply()
        self._reply = reply
        stream = self._deps.provider.stream(request)
        # aclosing: on Stop the provider's generator is closed at once, which closes the HTTP stream.
        async with _closing(stream) as events:
            async for event in events:
                self._on_event(event, reply)
        self._reply = None
        if reply.usage is not None:
            self._report_usage(reply.usage)
        return reply

    def _on_event(self, event: StreamEvent, reply: ModelReply) -> None:
        if isinstance(event, TextDelta):
            reply.text += event.text
            self._deps.emit(Delta(chat_id=self._chat_id, turn_id=self._turn_id, text=event.text))
        elif isinstance(event, ReasoningDelta):
            self._deps.emit(
                Delta(chat_id=self._chat_id, turn_id=self._turn_id, text=event.text, channel="reasoning")
            )
        elif isinstance(event, ToolCallReady):
            reply.tool_calls.append(event.call)
        elif isinstance(event, UsageReport):
            reply.usage = event

    def _report_usage(self, usage: UsageReport) -> None:
        self._deps.on_usage(usage)
        self._deps.emit(
            UsageEvent(
                chat_id=self._chat_id,
                turn_id=self._turn_id,
                model=self._model,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
            )
        )


@asynccontextmanager
async def _closing(stream: AsyncIterator[StreamEvent]) -> AsyncIterator[AsyncIterator[StreamEvent]]:
    """Like contextlib.aclosing, for any async iterator (generators have `aclose`)."""
    try:
        yield stream
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()

"""The typed dependencies of one turn, passed down explicitly (no globals)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.core.approvals import ApprovalGate, PolicyDecision
from app.core.events import AppEvent
from app.core.messages import AttachmentRef, Mention, Message, ToolSpec
from app.llm.base import Provider, UsageReport
from app.tools.base import ApprovalLedger, PreparedCall, Tool, ToolContext

Emit = Callable[[AppEvent], None]

DEFAULT_MAX_ITERATIONS = 20
# Roughly 4-5k tokens: enough for a useful file or command output without flooding context.
DEFAULT_MAX_TOOL_OUTPUT_CHARS = 20_000


class ToolBox(Protocol):
    """The tools offered to the model in this turn."""

    def specs(self) -> Sequence[ToolSpec]: ...

    def get(self, name: str) -> Tool | None: ...


class ApprovalPolicy(Protocol):
    """Decides whether a prepared call runs, asks, or is refused."""

    def __call__(self, tool: Tool, prepared: PreparedCall) -> PolicyDecision: ...


class TurnStore(Protocol):
    """Where completed turns go; a turn is written whole or not at all.

    Chats are trees (edit/regenerate make branches): `history` is the path ending at message
    `leaf` (None: the active leaf), and `append_turn` attaches the turn's first message to
    message `parent` (None: the active leaf)."""

    def history(self, chat_id: str, *, leaf: int | None = None) -> list[Message]: ...

    def append_turn(
        self, chat_id: str, turn_id: str, messages: Sequence[Message], *, parent: int | None = None
    ) -> object: ...


@dataclass(frozen=True)
class TurnSpec:
    """What to run: one user message in one chat with one model."""

    chat_id: str
    turn_id: str
    user_text: str
    provider_id: str
    model: str
    mentions: tuple[Mention, ...] = ()
    attachments: tuple[AttachmentRef, ...] = ()
    # Where the turn attaches (a message cursor, 0 for a new first message; None: the active
    # leaf at store time). With `regenerate`, it is the stored user message being answered
    # again: the model sees the path up to it, and only the new answer is stored.
    parent_cursor: int | None = None
    regenerate: bool = False

    def user_message(self) -> Message:
        return Message(
            role="user", content=self.user_text, mentions=self.mentions, attachments=self.attachments
        )


@dataclass(frozen=True)
class LoopDeps:
    provider: Provider
    tools: ToolBox
    tool_ctx: ToolContext
    policy: ApprovalPolicy
    gate: ApprovalGate
    ledger: ApprovalLedger
    emit: Emit
    on_usage: Callable[[UsageReport], None]
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    max_tool_output_chars: int = DEFAULT_MAX_TOOL_OUTPUT_CHARS
    stream: bool = True  # False: ask the provider for whole answers (`cashcode ask --no-stream`)


@dataclass(frozen=True)
class TurnDeps:
    loop: LoopDeps
    store: TurnStore
    system_prompt: str
    # Called after the turn is stored (e.g. automatic title). Runs on the core loop.
    on_stored: Callable[[TurnSpec, Sequence[Message]], None] | None = None

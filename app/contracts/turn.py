"""The turn vocabulary shared by the loop, the store and capabilities: what a turn is, the
tools it is offered and where its history lives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from app.contracts.agents import AgentScope
from app.contracts.messages import AttachmentRef, Mention, Message, ToolSpec
from app.contracts.tools import Tool


class ToolBox(Protocol):
    """The tools offered to the model in this turn."""

    def specs(self) -> Sequence[ToolSpec]: ...

    def get(self, name: str) -> Tool | None: ...


class TurnStore(Protocol):
    """Where completed turns go; a turn is written whole or not at all.

    Chats are trees (edit/regenerate make branches): `history` is the path ending at message
    `leaf` (None: the active leaf), and `append_turn` attaches the turn's first message to
    message `parent` (None: the active leaf)."""

    def history(self, chat_id: str, *, leaf: int | None = None) -> list[Message]: ...

    def append_turn(
        self, chat_id: str, turn_id: str, messages: Sequence[Message], *, parent: int | None = None
    ) -> object: ...


T = TypeVar("T")


class StoreRunner(Protocol):
    """Where a turn's database work runs: the app's store lane (worker threads, app/store/lane.py),
    so the event loop never waits for SQLite. `wait_ms` bounds the wait for a locked database
    (then DatabaseBusy); left out, the runner's own bound."""

    async def read(self, fn: Callable[[], T], *, wait_ms: int = ...) -> T: ...

    async def write(self, fn: Callable[[], T], *, wait_ms: int = ...) -> T: ...


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
    # What the chat's agent allows (issue 38): filled once per turn by the composition layer
    # (app/api/chats.py); capabilities filter by it. The default allows everything.
    scope: AgentScope = field(default_factory=AgentScope)

    def user_message(self) -> Message:
        return Message(
            role="user", content=self.user_text, mentions=self.mentions, attachments=self.attachments
        )

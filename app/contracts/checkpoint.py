"""Checkpoints of waiting turns (issue 35 item 3): what a turn that waits on a question has done
so far, kept outside the chat history so it can go on after a quit, a crash or kill -9.

The chat history stays whole turns only: a checkpoint is never written into a chat's messages;
the turn it belongs to is stored once, whole, when it finishes (or is stopped). The core fills a
`TurnProgress` while a question waits and hands it to a `CheckpointSink`; the app adds what it
needs to start the turn again (`TurnCheckpoint`) and keeps it in the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from app.contracts.agents import DEFAULT_AGENT_ID
from app.contracts.events import ApprovalSummary
from app.contracts.messages import AttachmentRef, Mention, Message
from app.contracts.tools import GrantKind

CHECKPOINT_VERSION = 1


class SavedGrant(BaseModel):
    """The standing grant an "Always allow" answer adds (app/contracts/tools.py GrantKey)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: GrantKind
    key: tuple[str, ...]
    workspace: str = ""


class WaitingCall(BaseModel):
    """A tool call whose question waits for an answer: what the question showed (so the Inbox
    can list it again) and what the answer needs to take effect."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    call_id: str
    approval_id: str
    # "approval": the call has not run; "escalation": it ran confined, the sandbox blocked it
    # and the question is whether to run it once more without the sandbox (`blocked` is what
    # the confined run returned).
    kind: Literal["approval", "escalation"] = "approval"
    tool: str
    title: str
    detail: str
    argv: list[str] | None = None
    summary: ApprovalSummary | None = None
    grant: SavedGrant | None = None  # None: "Always allow" is not offered
    blocked: str | None = None
    asked_at: str  # ISO-8601 UTC


class TurnProgress(BaseModel):
    """The part of a turn that is done while a question waits.

    `messages`: the new messages of the turn, user message first, ending with the assistant
    message whose tool calls run now. `done`: the results (tool messages) of those calls that
    finished. `waiting`: the calls whose question waits. A call of the last message in neither
    was running when the process ended; it is not run again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Message]
    steps: int  # model calls made so far (the iteration limit counts on from here)
    done: list[Message] = Field(default_factory=list)
    waiting: list[WaitingCall] = Field(default_factory=list)


class CheckpointSink(Protocol):
    """Where the core keeps the progress of one waiting turn (one sink per turn)."""

    async def save(self, progress: TurnProgress) -> None:
        """Replace the turn's checkpoint with `progress` (one atomic write)."""

    async def drop(self) -> None:
        """The turn ended (or no question waits any more): forget its checkpoint."""

    def drop_soon(self) -> None:
        """The turn was stopped: forget its checkpoint in the background (Stop answers at once)."""

    def closing(self) -> bool:
        """True while the app quits: a waiting turn that is cancelled then keeps its checkpoint
        (it goes on after the restart) instead of ending as a stopped turn."""


class TurnCheckpoint(BaseModel):
    """A checkpoint as stored: the turn's progress plus what starting it again needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1] = 1  # CHECKPOINT_VERSION
    chat_id: str
    turn_id: str
    task_id: str | None = None
    provider_id: str
    model: str
    user_text: str
    mentions: tuple[Mention, ...] = ()
    attachments: tuple[AttachmentRef, ...] = ()
    parent_cursor: int | None = None
    regenerate: bool = False
    # What a capability fixed for the turn (a task's approval mode and workspace).
    approval_mode: Literal["autonomous", "sandboxed", "ask_writes", "read_only"] | None = None
    workspace: Path | None = None
    asker: str | None = None  # who asks in the Inbox (a task's name)
    # A chat that existed only in memory (a lazy chat's first turn): its title, to store it
    # with the turn when it finishes.
    reserved_title: str | None = None
    reserved_title_auto: bool = True
    # The chat's agent when the turn waited (issue 38). A stored chat's agent is read again from
    # the database on resume; a lazy chat's lived in memory only, so it is given back from here.
    agent_id: str = DEFAULT_AGENT_ID
    created_at: str
    progress: TurnProgress

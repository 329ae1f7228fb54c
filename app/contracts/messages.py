"""Conversation messages: the one shape shared by the loop, the store and the providers."""

from __future__ import annotations

import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Role = Literal["system", "user", "assistant", "tool"]
ToolOutcome = Literal["ok", "error", "denied"]


class ToolCall(BaseModel):
    """One function call requested by the model; `arguments` is the raw JSON text."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str = "{}"


def _empty_schema() -> dict[str, object]:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """A tool as offered to the model (OpenAI function-tool shape)."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, object] = Field(default_factory=_empty_schema)


class Mention(BaseModel):
    """An explicit @-selection sent with a user message (SPEC S7.9): structured metadata,
    never appended to the text."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["skill", "mcp", "knowledge"]
    name: str  # Skill name, MCP catalog name or knowledge base name
    label: str = ""  # what the chip showed


# Characters that make a name read differently from what it is: right-to-left overrides and
# isolates ("invoice\u202efdp.exe" shows as "invoiceexe.pdf").
_BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def safe_file_name(name: str) -> str:
    """A file name as it is stored and shown: NUL and every other control character (C0, DEL,
    C1: a newline or an escape sequence in a name), and the bidirectional controls, replaced
    with "_" (issue 33.12)."""
    return "".join("_" if unicodedata.category(c) == "Cc" or c in _BIDI_CONTROLS else c for c in name)


class AttachmentRef(BaseModel):
    """A file sent with a user message (SPEC S1.3). The bytes live content-addressed in the
    data folder (`sha256`); only this reference is stored with the message."""

    model_config = ConfigDict(frozen=True)

    sha256: str
    name: str
    mime: str
    size: int
    kind: Literal["image", "text", "pdf", "file"] = "file"

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        return safe_file_name(value)  # whoever made the reference (a client's chat.send)


class Message(BaseModel):
    """A chat message. Tool messages carry `tool_call_id` and the tool's `name`.

    User messages may carry `mentions` and `attachments` (stored in the message's meta)."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    mentions: tuple[Mention, ...] = ()
    attachments: tuple[AttachmentRef, ...] = ()
    stopped: bool = False  # an answer cut short by Stop (stored in the message's meta)
    # A user message given to the model inside a running turn (Steer), after that step's tool
    # results or answer; stored in the meta so history shows it where it was given.
    steer: bool = False
    # A tool message's outcome (stored in the meta) so a reloaded chat shows "Denied" or
    # "Failed" rather than "Done". None: not a tool message, or stored before outcomes were.
    tool_outcome: ToolOutcome | None = None
    # Turn-only: stored history keeps this text instead of `content` (see `for_history`).
    history_content: str | None = None

    def for_history(self) -> Message:
        """The message as history stores it (the turn-only content replaced)."""
        if self.history_content is None:
            return self
        return self.model_copy(update={"content": self.history_content, "history_content": None})

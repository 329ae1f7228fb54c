"""Request models of the branch routes (issue 11): edit a user message, regenerate an answer,
switch between sibling branches. Their turns stream like `chat.send` (same events)."""

from __future__ import annotations

from pydantic import Field

from app.api.models import ChatGet
from app.contracts.messages import AttachmentRef
from app.contracts.replies import ApiModel as _Model
from app.contracts.replies import ModelRef


class ChatEdit(_Model):
    chat_id: str
    cursor: int = Field(ge=1)  # the user message being edited; the edit becomes its sibling
    text: str = Field(max_length=200_000)
    model: ModelRef | None = None  # None: the remembered last choice
    attachments: list[AttachmentRef] | None = None  # None: the edited message's files


class ChatRegenerate(_Model):
    chat_id: str
    cursor: int = Field(ge=1)  # an answer's message (or the user message it answers)
    model: ModelRef | None = None


class BranchSwitch(ChatGet):
    """Make the path through message `cursor` active; answers with its newest page like
    `chats.get` (`before_cursor` is ignored)."""

    cursor: int = Field(ge=1)

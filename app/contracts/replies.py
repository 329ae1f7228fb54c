"""Reply and request models shared by the core routes and the capabilities' routes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

MASK = "********"  # what the UI shows (and sends back unchanged) for a stored secret
ToolPolicy = Literal["always", "ask", "never"]


class ApiModel(BaseModel):
    # defer_build: schemas are built on first use, not at import (CLI start-up budget).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Empty(ApiModel):
    pass


class SharedReply(ApiModel):
    """A reply a route keeps and serves again until its data changes (the agents list): its JSON
    form is made once per instance (the model is frozen) and the same dict is given to every
    caller of `invoke`, who must read it and never change it."""

    _json: dict[str, Any] | None = PrivateAttr(default=None)

    def json_form(self) -> dict[str, Any]:
        if self._json is None:
            self._json = self.model_dump(mode="json")
        return self._json


class Ok(ApiModel):
    ok: Literal[True] = True


class ApiError(ApiModel):
    """Every route failure: code in {invalid, not_found, conflict, busy, provider_error,
    keyring_unavailable, unsupported, internal}."""

    code: str
    message: str
    details: dict[str, str] = Field(default_factory=dict)
    # The catalog entry (app/contracts/error_texts.py) the UI words `message` from, and what it
    # names; absent when the message has no entry (then the UI shows `message`).
    key: str = ""
    params: dict[str, str] = Field(default_factory=dict)


class ChatSummary(ApiModel):
    id: str
    title: str
    created_at: str
    updated_at: str
    running: bool = False
    message_count: int = 0  # user and assistant messages
    last_activity: str = ""  # when the last message was written (created_at for an empty chat)
    preview: str = ""  # chats.list only: the last message shown, one line, at most 80 characters
    agent_id: str = "default"  # the agent the chat belongs to (issue 38)


class ModelRef(ApiModel):
    provider_id: str
    model: str


class FolderPick(ApiModel):
    path: str | None


class FilePickQuery(ApiModel):
    """`desktop.pick_file`: which files the dialog offers (`mcpb`: MCP Bundles only)."""

    kind: Literal["any", "mcpb"] = "any"

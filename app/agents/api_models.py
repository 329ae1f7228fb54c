"""Request/response models of the `agents.*` routes (pydantic, extra="forbid", frozen)."""

from __future__ import annotations

from pydantic import Field

from app.agents.model import AgentSpec
from app.contracts.replies import ApiModel


class AgentRef(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)


class AgentInput(ApiModel):
    spec: AgentSpec


class AgentEdit(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)
    spec: AgentSpec


class AgentDuplicate(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, min_length=1, max_length=64)  # None: "<name> copy"


class ChatAgent(ApiModel):
    """Which agent a chat belongs to: changeable until its first message is sent."""

    chat_id: str = Field(min_length=1, max_length=64)
    agent_id: str = Field(min_length=1, max_length=64)


class AgentView(ApiModel):
    id: str
    spec: AgentSpec
    builtin: bool  # the default agent: today's behaviour, not editable or removable
    created_at: str
    updated_at: str


class AgentList(ApiModel):
    agents: list[AgentView]
    last_used: str  # the agent a new chat starts with (the one of the chat assigned last)

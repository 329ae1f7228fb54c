"""The agents capability's route table (declared in app/agents/plugin.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.agents import api_models as am
from app.contracts.replies import Empty, Ok

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "agents.list": (Empty, am.AgentList),
    "agents.get": (am.AgentRef, am.AgentView),
    "agents.add": (am.AgentInput, am.AgentView),
    "agents.edit": (am.AgentEdit, am.AgentView),
    "agents.remove": (am.AgentRef, Ok),
    "agents.duplicate": (am.AgentDuplicate, am.AgentView),
    "agents.set_chat_agent": (am.ChatAgent, Ok),
    "agents.export": (am.PackageExport, am.PackageExported),
    "agents.import_preview": (am.PackagePath, am.PackagePreview),
    "agents.import": (am.PackageImport, am.PackageInstalled),
}

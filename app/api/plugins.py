"""THE list of capabilities. Adding one = its package (with a `plugin.py`) + one line here.

Order here means nothing: hooks run in the order of each plugin's declared `after`
dependencies, then by name (app/api/capabilities.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from app.agents.plugin import PLUGIN as AGENTS
from app.attachments.plugin import PLUGIN as ATTACHMENTS
from app.contracts.capability import CapabilityPlugin
from app.contracts.events import CORE_EVENTS, Event
from app.history.plugin import PLUGIN as HISTORY
from app.host.host import Host
from app.importer.plugin import PLUGIN as IMPORT
from app.knowledge.plugin import PLUGIN as KNOWLEDGE
from app.mcp.plugin import PLUGIN as MCP
from app.mcp_catalog.plugin import PLUGIN as MCP_CATALOG
from app.memory.plugin import PLUGIN as MEMORY
from app.observability.plugin import PLUGIN as OBSERVABILITY
from app.resume.plugin import PLUGIN as RESUME
from app.skills.plugin import PLUGIN as SKILLS
from app.store.db import Database, SchemaPart, SchemaState, schema_state
from app.tasks.plugin import PLUGIN as TASKS
from app.websearch.plugin import PLUGIN as WEBSEARCH

PLUGINS: tuple[CapabilityPlugin[Host], ...] = (
    ATTACHMENTS,
    HISTORY,
    IMPORT,
    KNOWLEDGE,
    MCP,
    MCP_CATALOG,
    MEMORY,
    OBSERVABILITY,
    RESUME,
    SKILLS,
    TASKS,
    WEBSEARCH,
    AGENTS,
)


def schema_parts(plugins: Sequence[CapabilityPlugin[Host]] = PLUGINS) -> tuple[SchemaPart, ...]:
    return tuple(SchemaPart(p.name, p.migrations) for p in plugins if p.migrations)


def open_database(path: Path | str, plugins: Sequence[CapabilityPlugin[Host]] = PLUGINS) -> Database:
    """The app's database with every capability's tables (tests and tools use this too)."""
    return Database(path, parts=schema_parts(plugins))


def registered_events(plugins: Sequence[CapabilityPlugin[Host]] = PLUGINS) -> tuple[type[Event], ...]:
    """The core's events, then each capability's declared ones (TypeScript generation)."""
    events: list[type[Event]] = list(CORE_EVENTS)
    for plugin in plugins:
        if plugin.events is not None:
            events.extend(importlib.import_module(plugin.events).EVENTS)
    return tuple(events)


def database_state(path: Path, plugins: Sequence[CapabilityPlugin[Host]] = PLUGINS) -> SchemaState:
    """Whether a read may open the database at `path` (app/store/db.py `schema_state`)."""
    return schema_state(path, schema_parts(plugins))

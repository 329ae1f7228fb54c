"""The knowledge capability (issue 26): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from pydantic import BaseModel

from app.contracts.capability import Capability, CapabilityPlugin, SettingsSection

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.knowledge.capability import KnowledgeCapability
    from app.knowledge.prefs import EmbeddingsAccess

    p = host.paths
    return KnowledgeCapability(
        host.db,
        (p.data_dir, p.config_dir, p.log_dir, p.cache_dir),
        host.publish,
        embeddings=EmbeddingsAccess(host.settings, host.secrets),
        gate_for=host.provider_gate,
    )


def _schema(conn: sqlite3.Connection) -> None:
    from app.knowledge.schema import SCHEMA_V1
    from app.store.migrations import run_script

    run_script(conn, SCHEMA_V1)


def _vectors(conn: sqlite3.Connection) -> None:
    from app.knowledge.schema import VECTORS_V2
    from app.store.migrations import run_script

    run_script(conn, VECTORS_V2)


def _prefs() -> type[BaseModel]:
    from app.knowledge.prefs import KnowledgePrefs

    return KnowledgePrefs


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="knowledge",
    build=_build,
    routes="app.knowledge.api_routes",
    events="app.knowledge.events",
    migrations=(_schema, _vectors),
    settings=SettingsSection("knowledge", _prefs),
)

"""The memory capability (SPEC S5): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.agents import AgentDirectory
from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.memory.capability import MemoryCapability

    def directory() -> AgentDirectory | None:
        # Asked when needed (Dream, the Memory view), not at build time.
        agents = host.capability("agents")
        return agents if isinstance(agents, AgentDirectory) else None

    return MemoryCapability(
        host.db,
        host.chats,
        host.paths.data_dir,
        host.settings,
        host.provider,
        host.env,
        publish=host.publish,
        directory=directory,
    )


def _schema(conn: sqlite3.Connection) -> None:
    from app.memory.schema import migrate_memory

    migrate_memory(conn)


def _provenance(conn: sqlite3.Connection) -> None:
    from app.memory.schema import PROVENANCE
    from app.store.migrations import run_script

    run_script(conn, PROVENANCE)


def _owners(conn: sqlite3.Connection) -> None:
    from app.memory.schema import OWNERS
    from app.store.migrations import run_script

    run_script(conn, OWNERS)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="memory",
    build=_build,
    routes="app.memory.api_routes",
    events="app.memory.events",
    migrations=(_schema, _provenance, _owners),
    after=("agents",),  # an agent's own memory: which chats Dream leaves out (AgentDirectory)
)

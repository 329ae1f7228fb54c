"""The agents capability (issue 38): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.agents.capability import AgentsCapability

    return AgentsCapability(host)


def _agents_v1(conn: sqlite3.Connection) -> None:
    from app.agents.schema import AGENTS_V1
    from app.store.migrations import run_script

    run_script(conn, AGENTS_V1)


def _agents_v2(conn: sqlite3.Connection) -> None:
    from app.agents.schema import AGENTS_V2
    from app.store.migrations import run_script

    run_script(conn, AGENTS_V2)


def _agents_v3(conn: sqlite3.Connection) -> None:
    from app.agents.schema import AGENTS_V3
    from app.store.migrations import run_script

    run_script(conn, AGENTS_V3)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="agents",
    build=_build,
    routes="app.agents.api_routes",
    migrations=(_agents_v1, _agents_v2, _agents_v3),
)

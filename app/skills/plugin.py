"""The Skills capability: declared for the app. It asks MCP to connect the servers a Skill
requires, so MCP's hooks come first."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.skills.capability import build_skills_capability

    return build_skills_capability(host)


def _activations(conn: sqlite3.Connection) -> None:
    from app.skills.activations import migrate

    migrate(conn)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="skills",
    build=_build,
    routes="app.skills.api_routes",
    events="app.skills.events",
    migrations=(_activations,),
    after=("mcp",),
)

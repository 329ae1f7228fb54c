"""The observability capability (traces, usage, evals): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.observability.wiring import observability

    return observability(host)


def _traces(conn: sqlite3.Connection) -> None:
    from app.observability.schema import TRACES_V1
    from app.store.migrations import run_script

    run_script(conn, TRACES_V1)


def _traces_done_with_errors(conn: sqlite3.Connection) -> None:
    from app.observability.schema import TRACES_V2
    from app.store.migrations import run_script

    run_script(conn, TRACES_V2)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="observability",
    build=_build,
    routes="app.observability.api_routes",
    events="app.observability.events",
    migrations=(_traces, _traces_done_with_errors),
)

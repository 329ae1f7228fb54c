"""The import capability (`cashcode import`, Settings → Import): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.importer.api_routes import ImportCapability

    return ImportCapability(host.app, host.db, host.chats, host.ledger)


def _import_records(conn: sqlite3.Connection) -> None:
    from app.importer.schema import migrate_import_records  # what `cashcode import` recorded

    migrate_import_records(conn)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="import",
    build=_build,
    routes="app.importer.api_routes",
    migrations=(_import_records,),
    deferred=True,
)

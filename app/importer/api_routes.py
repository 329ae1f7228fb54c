"""`import.preview {path}` / `import.run {path}`: the importer as a capability.

It reaches the other capabilities by route through the app's own `invoke` (memories, notes,
todos, Skills, MCP servers, summaries; `Host.app`, called only while an import runs), and
writes chats and approval grants through the core stores.
Heavy modules are imported on first use: the route table imports this module at start-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.contracts.capability import Capability, Handler
from app.importer.models import ImportPath, ImportReport

if TYPE_CHECKING:
    from app.host.host import AppPort
    from app.importer.service import ImportService
    from app.store.approvals import SqliteApprovalLedger
    from app.store.chats import ChatRepository
    from app.store.db import Database

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "import.preview": (ImportPath, ImportReport),
    "import.run": (ImportPath, ImportReport),
}


class ImportCapability(Capability):
    name = "import"

    def __init__(
        self,
        app: AppPort,
        db: Database,
        chats: ChatRepository,
        ledger: SqliteApprovalLedger,
        available: Callable[[str], bool] | None = None,
    ) -> None:
        self._app = app
        self._db = db
        self._chats = chats
        self._ledger = ledger
        self._available = available  # tests narrow which routes count as present

    def _service(self) -> ImportService:
        from app.importer.records import ImportRecords
        from app.importer.service import ImportService
        from app.importer.target import AppTarget

        target = AppTarget(self._app, self._chats, self._ledger, self._available)
        return ImportService(target, ImportRecords(self._db))

    def routes(self) -> Mapping[str, Handler]:
        async def preview(req: ImportPath) -> ImportReport:
            return await self._service().run(req.path, dry_run=True)

        async def run(req: ImportPath) -> ImportReport:
            return await self._service().run(req.path, dry_run=False)

        handlers: dict[str, Callable[[Any], Awaitable[BaseModel]]] = {
            "import.preview": preview,
            "import.run": run,
        }
        return handlers

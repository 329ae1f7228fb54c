"""`import.preview {path}` / `import.run {path}`: the importer as a capability.

It reaches the other capabilities by route through the app's own `invoke` (memories, notes,
todos, Skills, MCP servers, summaries), and writes chats and approval grants through the core
stores. The app is bound after it is built (`bind`), since the routes need its `invoke`.
Heavy modules are imported on first use: the route table imports this module at start-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.contracts.capability import Capability, Handler
from app.importer.models import ImportPath, ImportReport

if TYPE_CHECKING:
    from app.importer.service import ImportService
    from app.importer.target import BoundApp

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "import.preview": (ImportPath, ImportReport),
    "import.run": (ImportPath, ImportReport),
}


class ImportCapability(Capability):
    name = "import"

    def __init__(self, available: Callable[[str], bool] | None = None) -> None:
        self._app: BoundApp | None = None
        self._available = available  # tests narrow which routes count as present

    def bind(self, app: BoundApp) -> None:
        self._app = app

    def _service(self) -> ImportService:
        from app.importer.records import ImportRecords
        from app.importer.service import ImportService
        from app.importer.target import AppTarget

        if self._app is None:
            raise RuntimeError("ImportCapability used before bind()")
        return ImportService(AppTarget(self._app, self._available), ImportRecords(self._app.ctx.db))

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

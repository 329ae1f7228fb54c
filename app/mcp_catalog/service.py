"""Listing, installing and removing catalog servers. The MCP server entry an install creates
goes through the mcp.* routes (app/mcp), so it is a normal user entry: edit, remove, connect
and per-tool policies work as for any other; its secrets go to the keyring there."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.contracts.errors import ApiFailure, said, say
from app.contracts.events import AppEvent
from app.host.host import AppPort
from app.mcp_catalog import api_models as x
from app.mcp_catalog.events import McpCatalogProgress
from app.mcp_catalog.inputs import InputError, Places, check_inputs, default_of, missing_details, render
from app.mcp_catalog.installer import MARKER, Installer, InstallError
from app.mcp_catalog.mcp_routes import call_route, installed_apps, server_names
from app.mcp_catalog.models import Catalog, CatalogEntry

if TYPE_CHECKING:
    from app.mcp_catalog.bundle_service import BundleService


class CatalogService:
    def __init__(
        self,
        catalog: Catalog,
        installer: Installer,
        app: AppPort,
        publish: Callable[[AppEvent], None],
        places: Callable[[str], Places],
        bundles: BundleService | None = None,
    ) -> None:
        self._catalog = catalog
        self._installer = installer
        self._app = app
        self._publish = publish
        self._places = places  # per server id
        self._locks: dict[str, asyncio.Lock] = {}
        self._bundles = bundles  # MCP Bundles (.mcpb): previews, installs, their removal

    # ---- reading -------------------------------------------------------------------------------

    async def list(self, req: x.CatalogSearch) -> x.CatalogList:
        names = await server_names(self._app)
        await self._sweep(names)
        tools = self._installer.tools
        found = [e for e in self._catalog.servers if not req.search or e.matches(req.search)]
        return x.CatalogList(
            servers=[self._view(e, e.id in names and self._installer.is_installed(e.id)) for e in found],
            node_version=tools.node_version,
            node_problem=tools.node_problem,
        )

    def _view(self, e: CatalogEntry, installed: bool) -> x.CatalogServerView:
        places = self._places(e.id)
        problem = ""
        if e.package.registry == "npm":
            problem = self._installer.tools.node_problem
        elif self._installer.tools.uv is None:
            problem = "the bundled uv was not found; reinstall CashCode"
        return x.CatalogServerView(
            id=e.id,
            title=x.CatalogText(en=e.title.en, zh_cn=e.title.zh_cn),
            description=x.CatalogText(en=e.description.en, zh_cn=e.description.zh_cn),
            transport=e.transport,
            registry=e.package.registry,
            package=e.package.name,
            version=e.package.version,
            read_only=e.read_only,
            inputs=[
                x.CatalogInputView(
                    key=i.key,
                    kind=i.kind,
                    title=x.CatalogText(en=i.title.en, zh_cn=i.title.zh_cn),
                    description=x.CatalogText(en=i.description.en, zh_cn=i.description.zh_cn),
                    required=i.required,
                    default=default_of(i, places),
                    secret=i.kind == "secret",
                )
                for i in e.inputs
            ],
            installed=installed,
            problem=problem,
        )

    def _entry(self, name: str) -> CatalogEntry:
        entry = self._catalog.find(name)
        if entry is None:
            raise ApiFailure(
                "not_found", say("catalog.unknown", name=name[:80])
            )
        return entry

    async def plan(self, req: x.CatalogInstall) -> x.CatalogPlan:
        entry = self._entry(req.name)
        try:
            check_inputs(entry, req.inputs, self._places(entry.id))
            plan = self._installer.plan(entry)
        except (InputError, InstallError) as exc:
            raise ApiFailure("invalid", said(exc), missing_details(exc)) from None
        return x.CatalogPlan(id=entry.id, commands=[s.shown for s in plan.steps], folder=str(plan.folder))

    # ---- installing ----------------------------------------------------------------------------

    async def install(self, req: x.CatalogInstall) -> x.CatalogInstalled:
        entry = self._entry(req.name)
        lock = self._locks.setdefault(entry.id, asyncio.Lock())
        if lock.locked():
            raise ApiFailure("busy", say("catalog.installing", name=entry.id))
        async with lock:
            if entry.id in await server_names(self._app):
                raise ApiFailure(
                    "conflict",
                    say("catalog.exists", name=entry.id),
                )
            try:
                values = check_inputs(entry, req.inputs, self._places(entry.id))
                plan = self._installer.plan(entry)
            except (InputError, InstallError) as exc:
                raise ApiFailure("invalid", said(exc), missing_details(exc)) from None
            rendered = render(entry, values)
            for key in entry.inputs:  # a data folder the defaults point into (e.g. the memory file)
                if key.kind == "file" and values.get(key.key):
                    Path(values[key.key][0]).parent.mkdir(parents=True, exist_ok=True)

            def progress(kind: str, text: str) -> None:
                self._publish(McpCatalogProgress(server=entry.id, kind=kind, text=text))  # type: ignore[arg-type]

            try:
                installed = await self._installer.run(plan, progress)
            except InstallError as exc:
                progress("failed", str(exc))
                raise ApiFailure("invalid", said(exc)) from None
            argv = [installed.command, *installed.args, *rendered.args]
            payload: dict[str, Any] = {
                "name": entry.id,
                "transport": "stdio",
                "display_name": entry.title.en,
                "description": entry.description.en,
                "command": argv[0],
                "args": argv[1:],
                "env": {**rendered.env, **rendered.secret_env},
                "secret_env": list(rendered.secret_env),
                # Installed by the app: sandboxed by default; a server given an API key talks to
                # its service, so it may use the network (decision 366).
                "sandbox": True,
                "network": bool(rendered.secret_env),
            }
            try:
                await call_route(self._app, "mcp.servers.create", payload)
                # the user saw the command
                await call_route(self._app, "mcp.servers.confirm", {"name": entry.id})
            except ApiFailure as exc:
                await self._installer.remove(entry.id)
                progress("failed", exc.message)
                raise
            progress("done", " ".join(argv))
            return x.CatalogInstalled(
                server=entry.id,
                commands=[s.shown for s in plan.steps],
                argv=argv,
                apps=await installed_apps(self._app, entry.id),
            )

    async def uninstall(self, req: x.CatalogRef) -> x.CatalogRemoved:
        entry = self._catalog.find(req.name)
        server = entry.id if entry is not None else req.name
        if entry is None and self._bundles is not None and self._bundles.owns(server):
            pass  # an installed MCP Bundle: removed the same way
        elif server not in {e.id for e in self._catalog.servers} and not self._installer.is_installed(server):
            raise ApiFailure("not_found", say("catalog.not_catalog_server", name=req.name[:80]))
        removed_entry = False
        if server in await server_names(self._app):
            await call_route(self._app, "mcp.servers.delete", {"name": server})
            removed_entry = True
        removed_files = await self._installer.remove(server)
        if not (removed_entry or removed_files):
            raise ApiFailure("not_found", say("catalog.not_installed", name=server))
        return x.CatalogRemoved(server=server, removed_entry=removed_entry, removed_files=removed_files)

    # ---- helpers -------------------------------------------------------------------------------

    async def _sweep(self, names: set[str]) -> None:
        """A server removed as an ordinary entry (Market's Remove, `cashcode mcp remove`) leaves
        its install behind; it goes the next time the catalog is listed."""
        root = self._installer.root  # curated and MCP Registry installs alike
        for folder in sorted(root.iterdir()) if root.is_dir() else ():
            if folder.name not in names and (folder / MARKER).is_file():
                await self._installer.remove(folder.name)
        if self._bundles is not None:
            await self._bundles.sweep(names)

    def handlers(self) -> dict[str, Any]:
        return {
            "mcp_catalog.list": self.list,
            "mcp_catalog.plan": self.plan,
            "mcp_catalog.install": self.install,
            "mcp_catalog.uninstall": self.uninstall,
            **(self._bundles.handlers() if self._bundles is not None else {}),
        }


__all__ = ["CatalogService", "Sequence"]

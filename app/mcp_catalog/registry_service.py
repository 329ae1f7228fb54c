"""The MCP Registry in the catalog: search (live, cached, or said plainly to be offline), the
base URL setting, and installing an entry. A package entry installs exactly as a curated one
(app/mcp_catalog/installer.py: uv into the app's cache, npm with --ignore-scripts, pinned to the
entry's version); a remote entry becomes a URL server. Either way the MCP server entry is made
through the mcp.* routes, so it is a normal user entry (decision 140)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.contracts.errors import ApiFailure, say
from app.contracts.events import AppEvent
from app.contracts.mcp_apps import McpAppsProbe
from app.host.host import AppPort, SectionStore
from app.mcp_catalog import api_models as x
from app.mcp_catalog import registry_api_models as r
from app.mcp_catalog.bundle import BundleInfo
from app.mcp_catalog.bundle_service import BundleService
from app.mcp_catalog.events import McpCatalogProgress
from app.mcp_catalog.inputs import missing_details
from app.mcp_catalog.installer import Installer, InstallError, Plan
from app.mcp_catalog.mcp_routes import call_route, installed_apps, server_names
from app.mcp_catalog.prefs import ENV_REGISTRY_URL, McpCatalogPrefs
from app.mcp_catalog.registry import Page, RegistryClient, RegistryUnavailable, check_base_url
from app.mcp_catalog.registry_address import remote_address
from app.mcp_catalog.registry_bundle import BundleDownloadError, downloaded_bundle
from app.mcp_catalog.registry_cache import RegistryCache
from app.mcp_catalog.registry_models import WireEntry
from app.mcp_catalog.registry_plan import (
    Launch,
    Option,
    RegistryInputError,
    bundle_launch,
    catalog_entry,
    check_values,
    options,
    package_launch,
    remote_launch,
    render_package,
    render_remote,
    server_id,
)
from app.mcp_catalog.toolchain import venv_bin
from app.tools.ssrf import Resolver, system_resolve

UNSET_NOTICE = (
    "No MCP Registry is set. To browse one, enter its base URL (the address before /v0.1/servers) "
    f"under Market → MCP Registry, or set {ENV_REGISTRY_URL}. The curated catalog works without it."
)


class RegistryService:
    def __init__(
        self,
        prefs: SectionStore[McpCatalogPrefs],
        env: Mapping[str, str],
        cache: RegistryCache,
        client: Callable[[str], RegistryClient],
        installer: Installer,
        app: AppPort,
        publish: Callable[[AppEvent], None],
        clock: Callable[[], float] = time.time,
        reserved: Collection[str] = (),
        resolver: Resolver = system_resolve,
        bundles: BundleService | None = None,
        downloads: Path | None = None,
    ) -> None:
        self._prefs = prefs
        self._env = env
        self._cache = cache
        self._client = client
        self._installer = installer
        self._app = app
        self._publish = publish
        self._clock = clock
        self._locks: dict[str, asyncio.Lock] = {}
        self._reserved = frozenset(reserved)  # the curated catalog's ids: never a registry entry's
        self._resolver = resolver
        # Entries as their plan showed them, by the plan's digest: the install uses this very
        # entry, never a second answer of the registry (issue 33 item 5).
        self._pinned: OrderedDict[str, WireEntry] = OrderedDict()
        # An `mcpb` package installs through the bundle installer, downloaded into `downloads`
        # only while a route runs (app/mcp_catalog/registry_bundle.py).
        self._bundles = bundles
        self._downloads = downloads

    # ---- the base URL --------------------------------------------------------------------------

    def base_url(self) -> str:
        env = self._env.get(ENV_REGISTRY_URL, "").strip()
        try:
            return check_base_url(env or self._prefs.load().registry_url)
        except ValueError:
            return ""  # an invalid address is treated as none (the settings view says which)

    async def settings_get(self, req: Any) -> r.RegistrySettingsView:
        return self._settings_view()

    def _settings_view(self) -> r.RegistrySettingsView:
        env = self._env.get(ENV_REGISTRY_URL, "").strip()
        return r.RegistrySettingsView(
            registry_url=self.base_url(),
            saved_url=self._prefs.load().registry_url,
            from_env=bool(env),
            env_var=ENV_REGISTRY_URL,
        )

    async def settings_save(self, req: r.RegistrySettingsSave) -> r.RegistrySettingsView:
        try:
            url = check_base_url(req.registry_url)
        except ValueError as exc:
            raise ApiFailure("invalid", str(exc)) from None
        self._prefs.save(McpCatalogPrefs(registry_url=url))
        return self._settings_view()

    # ---- searching -----------------------------------------------------------------------------

    async def search(self, req: r.RegistrySearch) -> r.RegistryList:
        base = self.base_url()
        if not base:
            return r.RegistryList(state="unset", base_url="", notice=UNSET_NOTICE, servers=[])
        search = " ".join(req.search.split())
        cached = self._cache.get(base, search, req.cursor)
        now = self._clock()
        if cached is not None and not req.refresh and cached.fresh(now):
            return await self._list("cached", base, "", cached.fetched_at, cached.page)
        try:
            page = await self._client(base).page(search, req.cursor)
        except RegistryUnavailable as exc:
            why = f"The MCP Registry at {base} cannot be reached ({exc})"
            if cached is not None:
                notice = f"{why}; showing its answer from {_when(cached.fetched_at)}."
                return await self._list("cached", base, notice, cached.fetched_at, cached.page)
            notice = f"{why}. Showing the curated catalog only."
            return r.RegistryList(state="offline", base_url=base, notice=notice, servers=[])
        at = self._cache.put(base, search, req.cursor, page)
        return await self._list("live", base, "", at, page)

    async def _list(self, state: Any, base: str, notice: str, at: float, page: Page) -> r.RegistryList:
        names = await server_names(self._app)
        tools = self._installer.tools
        views = [self._view(e, names, tools.node_problem, tools.uv is None) for e in page.entries]
        return r.RegistryList(
            state=state,
            base_url=base,
            notice=notice,
            fetched_at=at,
            servers=views,
            next_cursor=page.next_cursor,
            skipped=list(page.skipped),
        )

    def _view(self, e: WireEntry, names: set[str], node_problem: str, no_uv: bool) -> r.RegistryServerView:
        opts = [self._local_problem(o, node_problem, no_uv) for o in options(e)]
        s = e.server
        sid = server_id(s.name, self._reserved)
        return r.RegistryServerView(
            name=s.name,
            id=sid,
            title=s.title or s.name,
            description=s.description,
            version=s.version,
            website=s.website_url,
            repository=s.repository.url if s.repository else "",
            status=e.official.status,
            installed=sid in names,
            install_option=next((o.index for o in opts if not o.problem), -1),
            options=[
                r.RegistryOptionView(
                    index=o.index,
                    kind=o.kind,
                    registry=o.registry,
                    identifier=o.identifier,
                    version=o.version,
                    transport=o.transport,
                    url=o.url,
                    problem=o.problem,
                    inputs=[
                        r.RegistryInputView(
                            key=i.key,
                            target=i.target,
                            description=i.description,
                            required=i.required,
                            secret=i.secret,
                            default="" if i.secret else i.default,
                            choices=list(i.choices),
                            placeholder=i.placeholder,
                            repeated=i.repeated,
                        )
                        for i in o.inputs
                    ],
                )
                for o in opts
            ],
        )

    @staticmethod
    def _local_problem(o: Option, node_problem: str, no_uv: bool) -> Option:
        """What this machine lacks for a package (Node.js, the bundled uv)."""
        if o.problem or o.kind != "package":
            return o
        if o.registry == "npm" and node_problem:
            return _with_problem(o, node_problem)
        if o.registry == "pypi" and no_uv:
            return _with_problem(o, "the bundled uv was not found; reinstall CashCode")
        return o

    # ---- installing ----------------------------------------------------------------------------

    async def _fetch(self, req: r.RegistryInstall) -> WireEntry:
        base = self.base_url()
        if not base:
            raise ApiFailure("invalid", UNSET_NOTICE)
        try:
            return await self._client(base).server(req.name, req.version or "latest")
        except RegistryUnavailable as exc:
            cached = self._cache.find(base, req.name) if not req.version else None
            if cached is None:
                bad = say("registry.entry_invalid", name=req.name[:100], reason=exc)
                raise ApiFailure("invalid", bad) from None
            return cached  # offline: the last answer seen for it

    async def _resolve(
        self, req: r.RegistryInstall, pinned: WireEntry | None = None
    ) -> tuple[WireEntry, Option]:
        entry = pinned if pinned is not None else await self._fetch(req)
        if entry.server.name != req.name:
            raise ApiFailure("invalid", say("registry.changed", name=req.name[:100]))
        tools = self._installer.tools
        opts = [self._local_problem(o, tools.node_problem, tools.uv is None) for o in options(entry)]
        if req.option == -1:
            chosen = next((o for o in opts if not o.problem), None)
            if chosen is None:
                why = "; ".join(o.problem for o in opts) or "it has neither packages nor remotes"
                raise ApiFailure("invalid", say("registry.cannot_install", name=req.name[:100], reason=why))
        elif req.option < len(opts):
            chosen = opts[req.option]
            if chosen.problem:
                name, why = req.name[:100], chosen.problem
                problem = say("registry.option_problem", name=name, option=req.option, reason=why)
                raise ApiFailure("invalid", problem)
        else:
            missing = say("registry.no_option", name=req.name[:100], count=len(opts), option=req.option + 1)
            raise ApiFailure("invalid", missing)
        return entry, chosen

    def _id(self, entry: WireEntry) -> str:
        return server_id(entry.server.name, self._reserved)

    def _launch(
        self, entry: WireEntry, option: Option, sid: str, values: Mapping[str, list[str]]
    ) -> tuple[Launch, Plan | None]:
        """What the install would write, and its install plan (a package)."""
        try:
            if option.kind == "remote":
                return remote_launch(entry, option, render_remote(option, values)), None
            plan = self._installer.plan(catalog_entry(entry, option, sid))
        except (RegistryInputError, InstallError, ValueError) as exc:
            raise ApiFailure("invalid", str(exc), missing_details(exc)) from None
        return package_launch(entry, option, render_package(option, values), self._program(plan)), plan

    def _program(self, plan: Plan) -> tuple[str, ...]:
        """The package's program as it will be once installed (app/mcp_catalog/installer.py
        `_entry_point`): the venv's script, or Node with the package's own bin file."""
        pkg = plan.entry.package
        if pkg.registry == "pypi":
            return (str(venv_bin(plan.folder / "venv", pkg.bin)),)
        node = self._installer.tools.node or "node"
        return (node, str(plan.folder / "node_modules" / pkg.name / f"<the {pkg.bin} program of {pkg.spec}>"))

    def _pin(self, digest: str, entry: WireEntry) -> None:
        self._pinned[digest] = entry
        self._pinned.move_to_end(digest)
        while len(self._pinned) > 64:
            self._pinned.popitem(last=False)

    async def plan(self, req: r.RegistryInstall) -> r.RegistryPlan:
        entry, option = await self._resolve(req)
        if option.registry == "mcpb":
            return await self._plan_bundle(req, entry, option)
        sid = self._id(entry)
        try:
            values = check_values(option, req.inputs)
        except RegistryInputError as exc:
            raise ApiFailure("invalid", str(exc), missing_details(exc)) from None
        launch, plan = self._launch(entry, option, sid, values)
        self._pin(launch.digest, entry)
        address = await remote_address(launch.url, self._resolver) if launch.url else ""
        if launch.kind == "remote":
            commands = [f"connect to {launch.url} ({option.transport})"]
        else:
            commands = [s.shown for s in plan.steps] if plan else []
        return r.RegistryPlan(
            id=sid,
            commands=commands,
            folder=str(plan.folder) if plan else "",
            kind=launch.kind,
            registry=launch.registry,
            identifier=launch.identifier,
            version=launch.version,
            file_sha256=launch.file_sha256,
            argv=list(launch.argv),
            env=launch.env,
            loader_env=list(launch.loader_env),
            url=launch.url,
            transport=launch.transport,
            headers=launch.headers,
            address=address,
            plain_http_secrets=self._plain_http_secrets(launch),
            confirm=launch.digest,
            # a remote is not contacted before the user confirms; a package is not downloaded yet
            apps=McpAppsProbe(state="remote" if launch.kind == "remote" else "not_installed"),
        )

    @staticmethod
    def _plain_http_secrets(launch: Launch) -> list[str]:
        from app.mcp.catalog import is_credential_header, is_private_transport

        if not launch.url or is_private_transport(launch.url):
            return []
        return sorted(h for h in launch.headers if h in launch.secret_headers or is_credential_header(h))

    async def install(self, req: r.RegistryInstall) -> x.CatalogInstalled:
        if not req.confirm:
            raise ApiFailure("invalid", say("registry.plan_first"))
        pinned = self._pinned.get(req.confirm)
        entry, option = await self._resolve(req, pinned)
        sid = self._id(entry)
        lock = self._locks.setdefault(sid, asyncio.Lock())
        if lock.locked():
            raise ApiFailure("busy", say("catalog.installing", name=sid))
        async with lock:
            if option.registry == "mcpb":  # the bundle installer checks its own name
                return await self._install_bundle(req, entry, option)
            if sid in await server_names(self._app):
                raise ApiFailure("conflict", say("catalog.exists", name=sid))
            try:
                values = check_values(option, req.inputs)
            except RegistryInputError as exc:
                if pinned is None:  # values the shown entry took do not fit this answer: it changed
                    raise ApiFailure("conflict", say("registry.changed", name=req.name[:100])) from None
                raise ApiFailure("invalid", str(exc), missing_details(exc)) from None
            launch, plan = self._launch(entry, option, sid, values)
            if launch.digest != req.confirm:  # not what the user was shown: nothing is written
                raise ApiFailure("conflict", say("registry.changed", name=req.name[:100]))
            if launch.loader_env and not req.allow_loader_env:
                values_shown = ", ".join(f"{k}={launch.env[k]}" for k in launch.loader_env)[:600]
                refused = say("catalog.loader_env", names=", ".join(launch.loader_env), values=values_shown)
                raise ApiFailure("invalid", refused)
            plain = self._plain_http_secrets(launch)
            if plain and not req.allow_plain_http_auth:
                raise ApiFailure("invalid", say("catalog.plain_http_header", header=plain[0]))
            if option.kind == "remote":
                return await self._add_remote(entry, option, sid, values, bool(plain))
            assert plan is not None
            return await self._install_package(entry, option, sid, values, plan, launch)

    async def _add_remote(
        self, entry: WireEntry, option: Option, sid: str, values: Mapping[str, list[str]], plain_http: bool
    ) -> x.CatalogInstalled:
        remote = render_remote(option, values)
        await call_route(
            self._app,
            "mcp.servers.create",
            {
                "name": sid,
                "transport": remote.transport,
                "display_name": (entry.server.title or entry.server.name)[:100],
                "description": entry.server.description[:1_000],
                "url": remote.url,
                "headers": remote.headers,
                "allow_plain_http_auth": plain_http,  # the user confirmed it above
            },
        )
        self._progress(sid, "done", remote.url)
        return x.CatalogInstalled(server=sid, commands=[], argv=[], apps=McpAppsProbe(state="remote"))

    async def _install_package(
        self,
        entry: WireEntry,
        option: Option,
        sid: str,
        values: Mapping[str, list[str]],
        plan: Plan,
        launch: Launch,
    ) -> x.CatalogInstalled:
        rendered = render_package(option, values)

        def progress(kind: str, text: str) -> None:
            self._progress(sid, kind, text)

        try:
            installed = await self._installer.run(plan, progress)
        except InstallError as exc:
            progress("failed", str(exc))
            raise ApiFailure("invalid", str(exc)) from None
        argv = [installed.command, *installed.args, *rendered.args]
        if plan.entry.package.registry == "pypi" and argv != list(launch.argv):  # never expected
            await self._installer.remove(sid)
            progress("failed", "the installed program is not the one shown")
            raise ApiFailure("conflict", say("registry.changed", name=entry.server.name[:100]))
        payload: dict[str, Any] = {
            "name": sid,
            "transport": "stdio",
            "display_name": (entry.server.title or entry.server.name)[:100],
            "description": entry.server.description[:1_000],
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
            # the user confirmed this launch: the plan's digest matched above
            await call_route(self._app, "mcp.servers.confirm", {"name": sid})
        except ApiFailure as exc:
            await self._installer.remove(sid)
            progress("failed", exc.message)
            raise
        progress("done", " ".join(argv))
        return x.CatalogInstalled(
            server=sid,
            commands=[s.shown for s in plan.steps],
            argv=argv,
            apps=await installed_apps(self._app, sid),
        )

    # ---- mcpb packages: through the bundle installer -----------------------------------------------

    @contextlib.asynccontextmanager
    async def _bundle_file(self, option: Option) -> AsyncIterator[tuple[Path, str, BundleService]]:
        """The package's bundle downloaded and hash-checked (removed on exit), its shown name."""
        assert option.package is not None
        if self._bundles is None or self._downloads is None:
            raise ApiFailure("unsupported", say("bundle.not_here"))
        url, sha = option.identifier, option.package.file_sha256
        shown = Path(urlsplit(url).path).name or "bundle.mcpb"
        try:
            async with downloaded_bundle(url, sha, self._downloads, self.base_url(), self._resolver) as path:
                yield path, shown, self._bundles
        except BundleDownloadError as exc:
            raise ApiFailure("invalid", str(exc)) from None

    async def _bundle_launch(
        self,
        req: r.RegistryInstall,
        entry: WireEntry,
        option: Option,
        path: Path,
        shown: str,
        bundles: BundleService,
    ) -> tuple[Launch, x.BundlePreview, BundleInfo]:
        preview, info = await bundles.preview_file(path, shown, req.inputs)
        problem = preview.problem or preview.input_problem or preview.conflict
        if problem:
            raise ApiFailure("invalid", say("registry.cannot_install", name=req.name[:100], reason=problem))
        return bundle_launch(entry, option, preview.argv, preview.env, preview.loader_env), preview, info

    async def _plan_bundle(self, req: r.RegistryInstall, entry: WireEntry, option: Option) -> r.RegistryPlan:
        async with self._bundle_file(option) as (path, shown, bundles):
            launch, preview, _ = await self._bundle_launch(req, entry, option, path, shown, bundles)
        self._pin(launch.digest, entry)
        fetch = f"download {option.identifier} and check its SHA-256 is {launch.file_sha256}"
        return r.RegistryPlan(
            id=preview.id,
            commands=[fetch, *preview.commands],
            folder=preview.folder,
            kind="package",
            registry="mcpb",
            identifier=option.identifier,
            version=option.version,
            file_sha256=launch.file_sha256,
            argv=list(launch.argv),
            env=launch.env,
            loader_env=list(launch.loader_env),
            url="",
            transport=option.transport,
            headers={},
            address="",
            plain_http_secrets=[],
            confirm=launch.digest,
            apps=preview.apps,  # the downloaded bundle's server, asked in the sandbox
        )

    async def _install_bundle(
        self, req: r.RegistryInstall, entry: WireEntry, option: Option
    ) -> x.CatalogInstalled:
        async with self._bundle_file(option) as (path, shown, bundles):
            launch, _, info = await self._bundle_launch(req, entry, option, path, shown, bundles)
            if launch.digest != req.confirm:  # not what the user was shown: nothing is written
                raise ApiFailure("conflict", say("registry.changed", name=req.name[:100]))
            return await bundles.install_file(info, path, shown, req.inputs, req.allow_loader_env)

    # ---- helpers -------------------------------------------------------------------------------

    def _progress(self, sid: str, kind: str, text: str) -> None:
        self._publish(McpCatalogProgress(server=sid, kind=kind, text=text))  # type: ignore[arg-type]

    def handlers(self) -> dict[str, Any]:
        return {
            "mcp_catalog.registry.search": self.search,
            "mcp_catalog.registry.plan": self.plan,
            "mcp_catalog.registry.install": self.install,
            "mcp_catalog.registry.settings": self.settings_get,
            "mcp_catalog.registry.save_settings": self.settings_save,
        }


def _with_problem(o: Option, problem: str) -> Option:
    from dataclasses import replace

    return replace(o, problem=problem)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))

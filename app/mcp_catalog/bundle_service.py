"""The mcp_catalog.bundle_* routes: preview an MCP Bundle, install it as a normal user entry
(through the mcp.* routes, decision 140; sensitive values go to the keyring there), and remove
it with `mcp_catalog.uninstall` like a catalog server."""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.contracts.errors import ApiFailure, Said, nest, said, say
from app.contracts.events import AppEvent
from app.contracts.mcp_apps import McpAppsProbe
from app.host.host import AppPort
from app.mcp.app_probe import Prober
from app.mcp_catalog import api_models as x
from app.mcp_catalog.bundle import (
    LIMITS,
    BundleError,
    BundleInfo,
    is_bundle_install,
    loader_env,
    plan_bundle,
    read_bundle,
    unpack_and_prepare,
    unpack_command,
)
from app.mcp_catalog.bundle_inputs import BundleInputError, SystemDirs, check_values, default_values
from app.mcp_catalog.bundle_manifest import Manifest
from app.mcp_catalog.events import McpCatalogProgress
from app.mcp_catalog.inputs import missing_details
from app.mcp_catalog.installer import Installer, InstallError, Step
from app.mcp_catalog.mcp_routes import call_route, server_names

SUFFIX = ".mcpb"
MAX_PROBES_KEPT = 16
STALE_PROBE_S = 3600
MASK = "********"


class BundleService:
    def __init__(
        self,
        installer: Installer,
        app: AppPort,
        publish: Callable[[AppEvent], None],
        dirs: SystemDirs,
        uploads: Path,
        prober: Prober | None = None,
        probes: Path | None = None,
    ) -> None:
        self._prober = prober  # asks a bundle's server for its Apps (app/mcp/app_probe.py)
        self._probes = probes  # <cache>/mcp_probe: where a bundle is unpacked for that, briefly
        self._probed: dict[tuple[str, str], McpAppsProbe] = {}
        self._installer = installer
        self._app = app
        self._publish = publish
        self._dirs = dirs
        self._uploads = uploads  # browser uploads live here only while a route runs
        self._locks: dict[str, asyncio.Lock] = {}

    # ---- routes --------------------------------------------------------------------------------

    async def preview(self, req: x.BundleSource) -> x.BundlePreview:
        async with self._source(req) as (path, shown):
            info = await self._read(path)
            names = await server_names(self._app)
            view = self._preview(info, shown, req.inputs, names)
            return view.model_copy(update={"apps": await self._apps(info, path, shown, req.inputs, view)})

    async def install(self, req: x.BundleSource) -> x.CatalogInstalled:
        async with self._source(req) as (path, shown):
            info = await self._read(path)
            server = info.server_id
            lock = self._locks.setdefault(server, asyncio.Lock())
            if lock.locked():
                raise ApiFailure("busy", say("catalog.installing", name=server))
            async with lock:
                return await self._install(info, path, shown, req.inputs, req.allow_loader_env)

    # ---- a downloaded bundle (a Registry package of type mcpb, app/mcp_catalog/registry_service.py)

    async def preview_file(
        self, path: Path, shown: str, given: Mapping[str, list[str]]
    ) -> tuple[x.BundlePreview, BundleInfo]:
        info = await self._read(path)
        view = self._preview(info, shown, given, await server_names(self._app))
        return view.model_copy(update={"apps": await self._apps(info, path, shown, given, view)}), info

    async def install_file(
        self, info: BundleInfo, path: Path, shown: str, given: Mapping[str, list[str]], allow_loader: bool
    ) -> x.CatalogInstalled:
        lock = self._locks.setdefault(info.server_id, asyncio.Lock())
        if lock.locked():
            raise ApiFailure("busy", say("catalog.installing", name=info.server_id))
        async with lock:
            return await self._install(info, path, shown, given, allow_loader)

    async def _install(
        self, info: BundleInfo, path: Path, shown: str, given: Mapping[str, list[str]], allow_loader: bool
    ) -> x.CatalogInstalled:
        server = info.server_id
        if server in await server_names(self._app):
            raise ApiFailure("conflict", say("catalog.exists", name=server))
        try:
            values = check_values(info.manifest, given, self._dirs)
            plan = plan_bundle(info, self._installer, values, self._dirs)
        except (BundleInputError, BundleError) as exc:
            raise ApiFailure("invalid", said(exc), missing_details(exc)) from None
        loaders = loader_env(plan)
        if loaders and not allow_loader:  # refused before anything is unpacked
            env = {**plan.config.env, **dict.fromkeys(plan.config.secret_env, MASK)}
            shown_values = ", ".join(f"{k}={env[k]}" for k in loaders)[:600]
            refused = say("catalog.loader_env", names=", ".join(loaders), values=shown_values)
            raise ApiFailure("invalid", refused)

        def progress(kind: str, text: str) -> None:
            self._publish(McpCatalogProgress(server=server, kind=kind, text=text))  # type: ignore[arg-type]

        try:
            await unpack_and_prepare(plan, path, shown, self._installer, progress)
        except (BundleError, InstallError) as exc:
            progress("failed", str(exc))
            raise ApiFailure("invalid", said(exc)) from None
        m = info.manifest
        payload: dict[str, Any] = {
            "name": server,
            "transport": "stdio",
            "display_name": (m.display_name or m.name)[:100],
            "description": _description(m),
            "command": plan.config.command,
            "args": list(plan.config.args),
            "env": {**plan.config.env, **plan.config.secret_env},
            "secret_env": list(plan.config.secret_env),
            # Installed by the app: sandboxed by default; a server given an API key talks to
            # its service, so it may use the network (decision 366).
            "sandbox": True,
            "network": bool(plan.config.secret_env),
        }
        try:
            await call_route(self._app, "mcp.servers.create", payload)
            await call_route(self._app, "mcp.servers.confirm", {"name": server})  # the user saw the command
        except ApiFailure as exc:
            await self._installer.remove(server)
            progress("failed", exc.message)
            raise
        progress("done", " ".join(plan.argv))
        return x.CatalogInstalled(
            server=server, commands=_commands(plan.steps, shown, plan.folder), argv=plan.argv
        )

    # ---- used by mcp_catalog.uninstall and the listing's sweep ------------------------------------

    def owns(self, server: str) -> bool:
        return is_bundle_install(self._installer.folder(server))

    async def sweep(self, names: set[str]) -> None:
        """A bundle removed as an ordinary entry leaves its folder; it goes at the next listing."""
        root = self._installer.root
        if not root.is_dir():
            return
        for folder in root.iterdir():
            if folder.name not in names and is_bundle_install(folder):
                await self._installer.remove(folder.name)

    # ---- helpers -------------------------------------------------------------------------------

    def _preview(
        self, info: BundleInfo, shown: str, given: Mapping[str, list[str]], names: set[str]
    ) -> x.BundlePreview:
        m = info.manifest
        tools = self._installer.tools
        problem = ""
        if m.server.type == "node" and tools.node_problem:
            problem = tools.node_problem
        elif m.server.type == "python" and tools.uv is None:
            problem = "the bundled uv was not found; reinstall CashCode"
        input_problem = missing_input = input_problem_key = ""
        input_problem_params: dict[str, str] = {}
        try:
            values = check_values(m, given, self._dirs)
        except BundleInputError as exc:
            input_problem, missing_input = str(exc), exc.missing
            problem_said = said(exc)
            if isinstance(problem_said, Said):  # worded again in the UI's language
                input_problem_key, input_problem_params = problem_said.key, problem_said.params
            values = self._shown_values(m, given)
        try:
            plan = plan_bundle(info, self._installer, values, self._dirs)
        except BundleError as exc:
            if exc.rule != "runtime":
                raise ApiFailure("invalid", exc.message) from None
            problem = problem or exc.message
            plan = None
        secret = set(plan.config.secret_env) if plan else set()
        env = {**plan.config.env, **dict.fromkeys(secret, MASK)} if plan else {}
        return x.BundlePreview(
            id=info.server_id,
            name=m.name,
            display_name=m.display_name or m.name,
            version=m.version,
            description=m.description,
            long_description=m.long_description or "",
            author=x.BundleAuthor(name=m.author.name, email=m.author.email or "", url=m.author.url or ""),
            manifest_version=m.spec_version,
            server_type=m.server.type,  # type: ignore[arg-type]  # checked by parse_manifest
            tools=[x.BundleTool(name=t.name, description=t.description) for t in m.tools],
            tools_generated=m.tools_generated,
            prompts=[p.name for p in m.prompts],
            argv=plan.argv if plan else [],
            env=env,
            loader_env=loader_env(plan) if plan else [],
            commands=_commands(plan.steps, shown, plan.folder) if plan else [],
            folder=str(self._installer.folder(info.server_id)),
            options=[
                x.BundleOptionView(
                    key=k,
                    type=o.type,
                    title=o.title,
                    description=o.description,
                    required=o.required,
                    sensitive=o.sensitive,
                    multiple=o.multiple,
                    default=[] if o.sensitive else default_values(o, self._dirs),
                    min=o.min,
                    max=o.max,
                )
                for k, o in m.user_config.items()
            ],
            size=info.size,
            sha256=info.sha256,
            problem=problem,
            conflict=f"an MCP server named {info.server_id!r} exists already"
            if info.server_id in names
            else "",
            input_problem=input_problem,
            input_problem_key=input_problem_key,
            input_problem_params=input_problem_params,
            missing_input=missing_input,
        )

    async def _apps(
        self, info: BundleInfo, path: Path, shown: str, given: Mapping[str, list[str]], view: x.BundlePreview
    ) -> McpAppsProbe:
        """The bundle's Apps: unpacked into a private folder of its own, prepared as the install
        would (python: its venv), its server started once in the sandbox, then all removed."""
        if self._prober is None or self._probes is None:
            return McpAppsProbe(state="unknown", reason="no probe is offered here")
        if view.problem:
            return McpAppsProbe(state="unknown", reason=view.problem)
        if view.input_problem:
            return McpAppsProbe(state="unknown", reason="the required settings are not filled in yet")
        # A listing holds for the bundle whatever the values (they rarely change which tools a
        # server has, and the page asks again at every pause in typing); a failure only for
        # the values it was made with (another value may start it).
        key = (info.sha256, json.dumps(sorted(given.items())))
        known = self._probed.get((info.sha256, "")) or self._probed.get(key)
        if known is not None:
            return known
        try:
            values = check_values(info.manifest, given, self._dirs)
        except BundleInputError as exc:
            return McpAppsProbe(state="unknown", reason=str(exc))
        self._probes.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(_sweep_stale, self._probes)
        root = Path(await asyncio.to_thread(tempfile.mkdtemp, "", "probe-", str(self._probes)))
        try:
            # `mcp_servers/<id>` as an install has it: the sandbox grants a server's install
            # folder by that shape (app/mcp/sandboxed.py)
            shadow = self._installer.beside(root / "mcp_servers")
            plan = plan_bundle(info, shadow, values, self._dirs)
            await unpack_and_prepare(plan, path, shown, shadow, lambda kind, text: None)
            env = {**plan.config.env, **plan.config.secret_env}
            probe = await self._prober.launch(info.server_id, plan.config.command, plan.config.args, env)
        except (BundleError, InstallError, OSError) as exc:
            probe = McpAppsProbe(state="unknown", reason=f"the bundle could not be prepared: {exc}")
        finally:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, root, True))
        if len(self._probed) >= MAX_PROBES_KEPT:
            self._probed.pop(next(iter(self._probed)))
        self._probed[(info.sha256, "") if probe.state == "listed" else key] = probe
        return probe

    def _shown_values(self, m: Manifest, given: Mapping[str, list[str]]) -> dict[str, list[str]]:
        """For the preview's command line only: the given or default values, a placeholder for
        a required one still missing (nothing is checked or run with these)."""
        out: dict[str, list[str]] = {}
        for key, option in m.user_config.items():
            values = [v for v in given.get(key, []) if v] or default_values(option, self._dirs)
            if not values and option.required:
                values = [f"${{user_config.{key}}}"]
            out[key] = values
        return out

    async def _read(self, path: Path) -> BundleInfo:
        try:
            return await asyncio.to_thread(read_bundle, path)
        except BundleError as exc:
            refused = nest(say("bundle.refused", reason=exc.message), "reason", exc.message)
            raise ApiFailure("invalid", refused, {"rule": exc.rule}) from None

    @contextlib.asynccontextmanager
    async def _source(self, req: x.BundleSource) -> AsyncIterator[tuple[Path, str]]:
        """The bundle as a file: the given path, or the upload written to a temporary file that
        is removed when the route ends (installed or not)."""
        if (req.path is None) == (req.data_base64 is None):
            raise ApiFailure("invalid", say("bundle.source"))
        if req.path is not None:
            if "\x00" in req.path or not os.path.isabs(req.path):
                raise ApiFailure("invalid", say("bundle.path_not_absolute"))
            if not req.path.lower().endswith(SUFFIX):
                raise ApiFailure("invalid", say("bundle.path_not_bundle", suffix=SUFFIX, path=req.path[:200]))
            if not await asyncio.to_thread(os.path.exists, req.path):
                raise ApiFailure("not_found", say("path.missing", path=req.path[:200]))
            yield Path(req.path), Path(req.path).name
            return
        if not (req.filename or "").lower().endswith(SUFFIX):
            raise ApiFailure("invalid", say("bundle.not_mcpb", suffix=SUFFIX))
        try:
            data = base64.b64decode(req.data_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise ApiFailure("invalid", say("bundle.bad_base64")) from None
        if len(data) > LIMITS.max_archive_bytes:
            raise ApiFailure("invalid", say("bundle.too_large", limit=LIMITS.max_archive_bytes >> 20))
        self._uploads.mkdir(parents=True, exist_ok=True)
        path = self._uploads / f"{secrets.token_hex(8)}{SUFFIX}"
        await asyncio.to_thread(path.write_bytes, data)
        try:
            yield path, Path(req.filename or SUFFIX).name
        finally:
            await asyncio.to_thread(path.unlink, True)

    def handlers(self) -> dict[str, Any]:
        return {"mcp_catalog.bundle_preview": self.preview, "mcp_catalog.bundle_install": self.install}


def _sweep_stale(probes: Path) -> None:
    """Probe folders left by an app that stopped mid-probe (a probe lasts seconds, not hours)."""
    cutoff = time.time() - STALE_PROBE_S
    for folder in probes.iterdir():
        with contextlib.suppress(OSError):
            if folder.name.startswith("probe-") and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)


def _description(m: Manifest) -> str:
    tools = ", ".join(t.name for t in m.tools[:20])
    text = f"{m.description} (tools: {tools})" if tools else m.description
    return text[:1_000]


def _commands(steps: Sequence[Step], shown: str, folder: Path) -> list[str]:
    return [unpack_command(shown, folder), *(s.shown for s in steps)]


__all__ = ["BundleService", "SystemDirs"]

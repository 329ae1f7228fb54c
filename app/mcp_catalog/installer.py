"""Installing a catalog server's package into the app's cache folder (never the user's
environment): a uv-made virtual environment for PyPI, `npm install --prefix` for npm.

Each server gets `<cache>/mcp_servers/<id>/`; a marker file written last says the install is
complete. A failed or cancelled install removes the folder, so nothing half-made stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.mcp_catalog.models import CatalogEntry
from app.mcp_catalog.toolchain import Toolchain, venv_bin
from app.support.atomic import atomic_write_text

MARKER = ".cashcode-install.json"
STEP_TIMEOUT_S = 900.0
TAIL_LINES = 12


class InstallError(RuntimeError):
    """An install could not run or failed; the message says why and what to do."""


@dataclass(frozen=True)
class Step:
    argv: tuple[str, ...]
    env: Mapping[str, str]  # added to the process environment (caches inside the app's cache)

    @property
    def shown(self) -> str:
        """The exact command, for people (no secret is ever part of an install command)."""
        return " ".join(_quote(a) for a in self.argv)


@dataclass(frozen=True)
class Plan:
    entry: CatalogEntry
    folder: Path
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Installed:
    command: str
    args: tuple[str, ...]  # before the entry's own arguments


Progress = Callable[[str, str], None]  # (kind: "command" | "output", text)


class Installer:
    def __init__(self, root: Path, downloads: Path, tools: Toolchain, base_env: Mapping[str, str]) -> None:
        self.root = root  # <cache>/mcp_servers
        self._downloads = downloads  # uv's and npm's download caches
        self.tools = tools
        self._base_env = dict(base_env)

    def folder(self, server: str) -> Path:
        return self.root / server

    def beside(self, root: Path) -> Installer:
        """The same tools and caches installing into another root (a preview's probe folder)."""
        return Installer(root, self._downloads, self.tools, self._base_env)

    def is_installed(self, server: str) -> bool:
        return (self.folder(server) / MARKER).is_file()

    def uv_env(self) -> dict[str, str]:
        """uv's caches (and the Pythons it fetches) inside the app's cache folder."""
        return {
            "UV_CACHE_DIR": str(self._downloads / "uv"),
            "UV_PYTHON_INSTALL_DIR": str(self._downloads / "python"),
        }

    async def run_step(self, step: Step, folder: Path, progress: Progress) -> None:
        """One command in `folder` (MCP Bundles run their own steps, app/mcp_catalog/bundle.py)."""
        await self._step(step, folder, progress)

    def plan(self, entry: CatalogEntry) -> Plan:
        folder = self.folder(entry.id)
        pkg = entry.package
        if pkg.registry == "pypi":
            if self.tools.uv is None:
                raise InstallError("the bundled uv was not found; reinstall CashCode")
            env = self.uv_env()
            venv = folder / "venv"
            make = [
                self.tools.uv,
                "venv",
                "--quiet",
                *(["--python", self.tools.python] if self.tools.python else []),
            ]
            steps = (
                Step((*make, str(venv)), env),
                Step(
                    (self.tools.uv, "pip", "install", "--python", str(venv_bin(venv, "python")), pkg.spec),
                    env,
                ),
            )
            return Plan(entry, folder, steps)
        if self.tools.node_problem or self.tools.npm is None:
            raise InstallError(self.tools.node_problem)
        env = {"npm_config_cache": str(self._downloads / "npm"), "npm_config_update_notifier": "false"}
        argv = (
            self.tools.npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--prefix",
            str(folder),
            pkg.spec,
        )
        return Plan(entry, folder, (Step(argv, env),))

    async def run(self, plan: Plan, progress: Progress) -> Installed:
        """Run the plan's steps; on any failure (or cancellation) the folder is removed."""
        folder = plan.folder
        if folder.exists():  # a leftover without its marker (an interrupted install)
            await asyncio.to_thread(shutil.rmtree, folder, True)
        try:
            folder.mkdir(parents=True)
            for step in plan.steps:
                progress("command", step.shown)
                await self._step(step, folder, progress)
            installed = self._entry_point(plan)
            marker = {
                "id": plan.entry.id,
                "package": plan.entry.package.spec,
                "registry": plan.entry.package.registry,
            }
            atomic_write_text(folder / MARKER, json.dumps(marker))
            return installed
        except BaseException:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, folder, True))
            raise

    async def _step(self, step: Step, folder: Path, progress: Progress) -> None:
        env = {**self._base_env, **step.env}
        if self.tools.node:  # npm's launcher finds `node` through PATH
            env["PATH"] = os.pathsep.join(
                p for p in (str(Path(self.tools.node).parent), env.get("PATH", "")) if p
            )
        try:
            proc = await asyncio.create_subprocess_exec(
                *step.argv,
                cwd=folder,  # no project configuration of the user's current folder applies
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
        except OSError as exc:
            raise InstallError(f"cannot run {step.argv[0]} ({exc.strerror})") from None
        tail: list[str] = []
        try:
            async with asyncio.timeout(STEP_TIMEOUT_S):
                assert proc.stdout is not None
                async for raw in proc.stdout:
                    line = raw.decode("utf-8", "replace").rstrip()
                    if line:
                        tail = [*tail[-(TAIL_LINES - 1) :], line]
                        progress("output", line[:1_000])
                code = await proc.wait()
        except TimeoutError:
            await _kill(proc)
            raise InstallError(f"{step.shown} did not finish within {STEP_TIMEOUT_S:.0f} s") from None
        except BaseException:
            await _kill(proc)
            raise
        if code != 0:
            detail = "\n".join(tail[-6:])
            raise InstallError(f"the install failed (exit {code}) running: {step.shown}\n{detail}".rstrip())

    def _entry_point(self, plan: Plan) -> Installed:
        pkg = plan.entry.package
        if pkg.registry == "pypi":
            script = venv_bin(plan.folder / "venv", pkg.bin)
            if not script.is_file():
                raise InstallError(f"{pkg.spec} installed no program named {pkg.bin}")
            return Installed(str(script), ())
        base = plan.folder / "node_modules" / pkg.name
        try:
            manifest = json.loads((base / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise InstallError(f"{pkg.spec} was not installed (no package.json)") from None
        bins = manifest.get("bin")
        target = bins if isinstance(bins, str) else bins.get(pkg.bin) if isinstance(bins, dict) else None
        if target is None and isinstance(bins, dict) and len(bins) == 1:
            target = next(iter(bins.values()))  # npx's rule: a package's only program (registry entries)
        js = (base / str(target)).resolve() if target else None
        if js is None or not js.is_file() or not js.is_relative_to(base.resolve()):
            raise InstallError(f"{pkg.spec} has no program named {pkg.bin}")
        assert self.tools.node is not None
        return Installed(self.tools.node, (str(js),))

    async def remove(self, server: str) -> bool:
        folder = self.folder(server)
        if not folder.exists():
            return False
        await asyncio.to_thread(shutil.rmtree, folder, True)
        return True


async def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    await proc.wait()


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)

"""MCP Bundles (`.mcpb`, a ZIP with `manifest.json` at its root): read and checked without
unpacking (the preview), then unpacked into `<cache>/mcp_servers/<id>/` with the same
hostile-archive rules as Skill ZIPs (app/support/ziparchive.py).

What runs: a node bundle with the user's Node (app/mcp_catalog/toolchain.py), a python bundle
with a bare virtual environment uv makes inside the bundle's folder (the interpreter only; the
bundle's own dependencies come from its PYTHONPATH, `server/lib` by default as the spec says),
a binary bundle its own program. The folder is complete only once the marker file is written
(decision 142): a refusal or failure on the way removes it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import stat
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.contracts.errors import said, say
from app.mcp_catalog.bundle_inputs import RenderedConfig, SystemDirs, render
from app.mcp_catalog.bundle_manifest import (
    MAX_MANIFEST_BYTES,
    Manifest,
    ManifestError,
    check_relative,
    parse_manifest,
    this_platform,
)
from app.mcp_catalog.installer import MARKER, Installer, InstallError, Progress, Step
from app.mcp_catalog.toolchain import venv_bin
from app.support.atomic import atomic_write_text
from app.support.launch_env import loader_names
from app.support.ziparchive import (
    ArchiveLimits,
    ArchiveRefused,
    MiB,
    extract_members,
    member_key,
    open_archive,
    plan_members,
    read_member,
)

MANIFEST = "manifest.json"
WHAT = "bundle"
# Node bundles carry node_modules and python bundles their lib folder: far bigger than a Skill.
# A claimed size past these is refused from the central directory, before anything is written.
LIMITS = ArchiveLimits(
    max_archive_bytes=256 * MiB, max_members=20_000, max_total_bytes=1024 * MiB, max_file_bytes=256 * MiB
)
_PYTHON = re.compile(r"^python(3(\.\d+)?)?(\.exe)?$")
_NODE = ("node", "node.exe")


class BundleError(ValueError):
    """The bundle is refused; `rule` is stable (`zip.symlink`, `manifest`, `platform`, …)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


@dataclass(frozen=True)
class BundleInfo:
    """What the archive says, read from its central directory and manifest only."""

    manifest: Manifest
    server_id: str
    files: frozenset[str]  # member paths (case-folded keys) of the regular files
    sha256: str
    size: int


def server_id(name: str) -> str:
    """The MCP server name an install creates, from the manifest's `name`."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48].strip("-")
    if not slug:
        raise BundleError("manifest", say("bundle.archive.no_name", name=name[:60]))
    return slug


def read_bundle(path: Path) -> BundleInfo:
    """Check the archive (names, links, special files, claimed sizes) and the manifest."""
    try:
        archive = open_archive(path, LIMITS)
        with archive:
            members = plan_members(archive, LIMITS, WHAT)
            top = [m for m in members if m.parts == (MANIFEST,) and not m.is_dir]
            if not top:
                raise BundleError("manifest", say("bundle.archive.no_manifest"))
            manifest = parse_manifest(read_member(archive, top[0], MAX_MANIFEST_BYTES))
        files = frozenset(member_key(m.parts) for m in members if not m.is_dir)
    except ArchiveRefused as exc:
        raise BundleError(exc.rule, _archive_reason(exc)) from None
    except ManifestError as exc:
        raise BundleError("manifest", said(exc)) from None
    entry = check_relative(manifest.server.entry_point, "server.entry_point")
    if member_key(entry) not in files:
        entry_path = manifest.server.entry_point[:200]
        raise BundleError("manifest", say("bundle.archive.no_entry", path=entry_path))
    platforms = manifest.compatibility.platforms if manifest.compatibility else None
    if platforms and this_platform() not in platforms:
        made_for = ", ".join(platforms)
        refused = say("bundle.archive.platform", platforms=made_for, platform=this_platform())
        raise BundleError("platform", refused)
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(1024 * 1024):
            digest.update(chunk)
    return BundleInfo(manifest, server_id(manifest.name), files, digest.hexdigest(), path.stat().st_size)


@dataclass(frozen=True)
class BundlePlan:
    info: BundleInfo
    folder: Path
    steps: tuple[Step, ...]  # run after unpacking (python: make the interpreter's venv)
    config: RenderedConfig  # with the command resolved to what runs it here

    @property
    def argv(self) -> list[str]:
        return [self.config.command, *self.config.args]


def plan_bundle(
    info: BundleInfo, installer: Installer, values: Mapping[str, Sequence[str]], dirs: SystemDirs
) -> BundlePlan:
    """What the install does and runs, from checked values. Refuses a command the bundle's
    type does not run (a node bundle running `bash`) and a runtime this computer lacks."""
    m = info.manifest
    folder = installer.folder(info.server_id)
    rendered = render(m, m.config, folder, values, dirs)
    tools = installer.tools
    kind = m.server.type
    name = os.path.basename(rendered.command)
    steps: tuple[Step, ...] = ()
    env = dict(rendered.env)
    if kind == "node":
        if name not in _NODE:
            raise BundleError("command", say("bundle.archive.node_command", command=rendered.command[:200]))
        if tools.node_problem or tools.node is None:
            raise BundleError("runtime", tools.node_problem)
        command = tools.node
    elif kind == "python":
        if _PYTHON.fullmatch(name) is None:
            raise BundleError("command", say("bundle.archive.python_command", command=rendered.command[:200]))
        if tools.uv is None:
            raise BundleError("runtime", say("bundle.archive.no_uv"))
        venv = folder / "venv"
        make = [tools.uv, "venv", "--quiet", *(["--python", tools.python] if tools.python else [])]
        steps = (Step((*make, str(venv)), installer.uv_env()),)
        command = str(venv_bin(venv, "python"))
        if (
            "PYTHONPATH" not in env
            and "PYTHONPATH" not in rendered.secret_env
            and _has_dir(info, "server/lib")
        ):
            env["PYTHONPATH"] = str(folder / "server" / "lib")
    else:
        command = _inside(info, folder, rendered.command, "the command")
    args = tuple(_absolute_if_file(info, folder, a) for a in rendered.args)
    config = RenderedConfig(command, args, env, rendered.secret_env)
    return BundlePlan(info, folder, steps, config)


# Search-path variables that may point into the bundle's own folder without a question: the code
# there is the bundle's, which runs anyway (the spec's python bundles set PYTHONPATH to server/lib).
_OWN_PATH_VARS = ("PYTHONPATH", "NODE_PATH")


def loader_env(plan: BundlePlan) -> list[str]:
    """The loader variables of the launch that need their own confirmation (decision 281): all
    of them (app/support/launch_env.py), except a search path whose every entry is inside the
    bundle's folder."""
    folder = os.path.normpath(plan.folder)
    found = []
    for name in loader_names((*plan.config.env, *plan.config.secret_env)):
        value = plan.config.env.get(name)
        if value is not None and name.upper() in _OWN_PATH_VARS and _all_inside(value, folder):
            continue
        found.append(name)
    return found


def _all_inside(value: str, folder: str) -> bool:
    entries = value.split(os.pathsep)
    return all(
        os.path.isabs(e) and os.path.commonpath([os.path.normpath(e), folder]) == folder for e in entries
    )


def _has_dir(info: BundleInfo, prefix: str) -> bool:
    key = member_key(prefix.split("/")) + "/"
    return any(f.startswith(key) for f in info.files)


def _inside(info: BundleInfo, folder: Path, path: str, what: str) -> str:
    """A binary bundle's program: a file of the bundle, given relative or under ${__dirname}."""
    text = path
    if os.path.isabs(text):
        try:
            text = Path(text).relative_to(folder).as_posix()
        except ValueError:
            raise BundleError("command", say("bundle.archive.not_in_bundle", path=path[:200])) from None
    try:
        parts = check_relative(text, what)
    except ManifestError as exc:
        raise BundleError("command", said(exc)) from None
    if member_key(parts) not in info.files:
        raise BundleError("command", say("bundle.archive.not_in_bundle", path=path[:200]))
    return str(folder.joinpath(*parts))


def _absolute_if_file(info: BundleInfo, folder: Path, arg: str) -> str:
    """Entries have no working folder of their own, so `server/index.js` (a file of the bundle
    named relative to it, as the spec's examples do) becomes its absolute path."""
    if os.path.isabs(arg) or arg.startswith("-"):
        return arg
    try:
        parts = check_relative(arg, "argument")
    except ManifestError:
        return arg
    return str(folder.joinpath(*parts)) if member_key(parts) in info.files else arg


def unpack_command(shown: str, folder: Path) -> str:
    """How the unpacking is shown among the install's commands."""
    return f"unpack {shown} into {folder}"


async def unpack_and_prepare(
    plan: BundlePlan, source: Path, shown: str, installer: Installer, progress: Progress
) -> None:
    """Unpack into the server's folder, run the plan's steps, write the marker last. Any
    refusal, failure or cancellation removes the folder."""
    folder = plan.folder
    if folder.exists():  # a leftover without its marker (an interrupted install)
        await asyncio.to_thread(shutil.rmtree, folder, True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        progress("command", unpack_command(shown, folder))
        program = Path(plan.config.command) if plan.info.manifest.server.type == "binary" else None
        await asyncio.to_thread(_unpack, source, folder, plan.info.sha256, program)
        for step in plan.steps:
            progress("command", step.shown)
            await installer.run_step(step, folder, progress)
        marker = {
            "id": plan.info.server_id,
            "bundle": plan.info.manifest.name,
            "version": plan.info.manifest.version,
            "sha256": plan.info.sha256,
        }
        atomic_write_text(folder / MARKER, json.dumps(marker))
    except BaseException:
        await asyncio.shield(asyncio.to_thread(shutil.rmtree, folder, True))
        raise


def _unpack(source: Path, folder: Path, sha256: str, program: Path | None) -> None:
    digest = hashlib.sha256()
    with source.open("rb") as raw:
        while chunk := raw.read(1024 * 1024):
            digest.update(chunk)
    if digest.hexdigest() != sha256:
        raise InstallError("the bundle file changed since its preview; open it again")
    try:
        with zipfile.ZipFile(source) as archive:
            members = plan_members(archive, LIMITS, WHAT)
            extract_members(archive, members, folder, LIMITS, WHAT)
    except ArchiveRefused as exc:
        raise BundleError(exc.rule, _archive_reason(exc)) from None
    if program is not None:  # the user saw and accepted the command; ZIPs often lose the x bit
        program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def is_bundle_install(folder: Path) -> bool:
    """A complete bundle install (its marker names a bundle)."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("bundle"), str)


def _archive_reason(exc: ArchiveRefused) -> str:
    # Keyed (`zip.traversal`, its numbers and names as parameters) so the UI words every ZIP
    # rule in its language inside "the bundle is refused: …"; the English is the module's own.
    return say(exc.key, **exc.params)

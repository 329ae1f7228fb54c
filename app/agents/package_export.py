"""Writing an agent as a `.cashagent` package (issue 38 item 3).

Carried: the spec (without workspace, and an approval mode capped at "Ask before writing"),
the user and agent Skills it names (their files, pinned by sha256), the user MCP server entries
it names (launch specs: plain env values, credential-named variables turned into inputs without
values, header names as inputs), knowledge base names, and the scheduled tasks that run as it.
Never carried: secret values, indexed data, folders of the exporter, approvals or grants.
An agent allowed "all" Skills or servers carries none of them (decision 491)."""

from __future__ import annotations

import hashlib
import io
import json
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

from app.agents.model import AgentSpec
from app.agents.package_model import (
    FORMAT,
    MANIFEST,
    PACKAGE_MODES,
    PackageFile,
    PackageKnowledgeBase,
    PackageManifest,
    PackageServer,
    PackageSkill,
    PackageTask,
    launch_digest,
)
from app.agents.package_read import LIMITS, PackageRefused
from app.mcp.config import ServerEntry
from app.support.atomic import atomic_write_bytes
from app.support.launch_env import is_secret_name
from app.tasks.model import TaskDraft


@dataclass(frozen=True)
class ExportSources:
    skill_roots: tuple[Path, ...]  # <data>/skills/user, <data>/skills/agent
    servers: tuple[ServerEntry, ...]  # the user's MCP entries
    tasks: tuple[TaskDraft, ...]  # the tasks that run as this agent


def package_id_of(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:80]
    return slug or "agent"


def _skill(name: str, roots: tuple[Path, ...]) -> tuple[PackageSkill, dict[str, bytes]] | None:
    folder = next((r / name for r in roots if (r / name / "SKILL.md").is_file()), None)
    if folder is None:
        return None  # a builtin Skill, or not installed: named in the spec only
    files: list[PackageFile] = []
    data: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            continue  # links and special files are never carried (an import refuses them)
        rel = path.relative_to(folder).as_posix()
        if rel.startswith(".") or "/." in rel or "__pycache__" in rel:
            continue
        body = path.read_bytes()
        files.append(
            PackageFile(
                path=rel,
                sha256=hashlib.sha256(body).hexdigest(),
                size=len(body),
                executable=bool(info.st_mode & 0o111),
            )
        )
        data[f"skills/{name}/{rel}"] = body
    return PackageSkill(name=name, files=files), data


def _server(entry: ServerEntry) -> PackageServer:
    plain = {k: v for k, v in entry.env.items() if not is_secret_name(k)}
    asked = sorted({*entry.secret_env, *(k for k in entry.env if is_secret_name(k))})
    fields = {
        "name": entry.name,
        "display_name": entry.display_name,
        "description": entry.description[:2000],
        "transport": entry.transport,
        "command": entry.command,
        "args": list(entry.args),
        "env": plain,
        "url": entry.url,
        "secret_env": asked,
        "header_names": list(entry.header_names),
        "network": entry.network,
    }
    return PackageServer.model_validate({**fields, "launch_sha256": launch_digest(fields)})


def _task(draft: TaskDraft) -> PackageTask:
    mode = draft.approval_mode if draft.approval_mode in PACKAGE_MODES else "ask_writes"
    return PackageTask(
        name=draft.name,
        prompt=draft.prompt,
        schedule=draft.schedule,
        approval_mode=mode,  # type: ignore[arg-type]
        chat_mode=draft.chat_mode,
        missed_policy=draft.missed_policy,
    )


def build(
    spec: AgentSpec, sources: ExportSources, package_id: str, version: int
) -> tuple[PackageManifest, dict[str, bytes]]:
    mode = spec.approval_mode if spec.approval_mode in (None, *PACKAGE_MODES) else "ask_writes"
    carried = spec.model_copy(update={"workspace": None, "approval_mode": mode})
    skills: list[PackageSkill] = []
    files: dict[str, bytes] = {}
    for name in spec.skills or []:
        found = _skill(name, sources.skill_roots)
        if found is not None:
            skills.append(found[0])
            files.update(found[1])
    wanted = {n.casefold() for n in spec.mcp_servers or []}
    servers = [_server(e) for e in sources.servers if e.name.casefold() in wanted]
    manifest = PackageManifest(
        format=FORMAT,
        id=package_id,
        version=version,
        agent=carried,
        skills=skills,
        mcp_servers=servers,
        knowledge_bases=[PackageKnowledgeBase(name=k) for k in spec.knowledge_bases or []],
        tasks=[_task(t) for t in sources.tasks],
    )
    return manifest, files


def write(target: Path, manifest: PackageManifest, files: dict[str, bytes]) -> str:
    """The ZIP at `target` (written atomically); returns the manifest's sha256."""
    raw = json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False).encode()
    total = len(raw) + sum(len(b) for b in files.values())
    if total > LIMITS.max_total_bytes or len(files) + 1 > LIMITS.max_members:
        raise PackageRefused("package.too_big", "the agent's Skills are larger than a package may be")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_info(MANIFEST, False), raw)
        pinned = manifest.file_paths()
        for name, body in files.items():
            archive.writestr(_info(name, pinned[name].executable), body)
    if buffer.tell() > LIMITS.max_archive_bytes:
        raise PackageRefused("package.too_big", "the package would be larger than 10 MiB")
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(target, buffer.getvalue())
    return hashlib.sha256(raw).hexdigest()


def _info(name: str, executable: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
    return info

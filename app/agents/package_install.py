"""Installing a staged agent package as one unit, or not at all, even under kill -9.

1. Stage: the package is extracted and checked into `<data>/agents/staging/<txid>-<pid>/pkg`;
   the new `servers.json` is written there too, and `plan.json` lists the folder moves.
2. Commit: ONE SQLite transaction writes the agent, its tasks, its knowledge bases and the
   `agent_packages` row carrying `txid`. Until then nothing the app reads has changed.
3. Publish: atomic renames (each Skill folder; the old version's folders move into the staging
   folder) and one `os.replace` of servers.json; then the staging folder is removed.

`recover()` (run when the capability starts and before every import) finishes step 3 for a
staging folder whose txid is committed and removes any other one whose process is gone, so a
kill at any point leaves either the old state or the whole new one."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.agents.model import AgentSpec
from app.agents.package_model import PackageManifest, PackageServer
from app.agents.package_read import PackageRefused, StagedPackage, stage
from app.contracts.agents import DEFAULT_AGENT_ID
from app.mcp.config import ServerEntry
from app.store.db import Database
from app.store.ids import new_id
from app.store.timeutil import utc_now_iso
from app.tasks.model import TaskDraft
from app.tasks.times import to_db

Hook = Callable[[str], None]


def _no_hook(step: str) -> None:
    return None


@dataclass(frozen=True)
class Installed:
    """What an installed package row says (the manifest an update is compared with)."""

    agent_id: str
    manifest: PackageManifest
    digest: str


@dataclass(frozen=True)
class PackageDirs:
    data_dir: Path
    skills_user: Path  # <data>/skills/user: where carried Skills go
    servers_json: Path  # <data>/mcp/servers.json

    @property
    def staging(self) -> Path:
        return self.data_dir / "agents" / "staging"


def installed(db: Database, package_id: str) -> Installed | None:
    rows = db.query(
        "SELECT agent_id, manifest, digest FROM agent_packages WHERE package_id = ?", (package_id,)
    )
    if not rows:
        return None
    return Installed(
        agent_id=rows[0]["agent_id"],
        manifest=PackageManifest.model_validate_json(rows[0]["manifest"]),
        digest=rows[0]["digest"],
    )


def installed_of_agent(db: Database, agent_id: str) -> Installed | None:
    rows = db.query("SELECT package_id FROM agent_packages WHERE agent_id = ?", (agent_id,))
    return installed(db, rows[0]["package_id"]) if rows else None


def new_stage(dirs: PackageDirs, path: Path) -> tuple[StagedPackage, Path]:
    """Stage `path` into a fresh folder; returns the package and the folder (the caller removes it)."""
    dirs.staging.mkdir(parents=True, exist_ok=True)
    folder = dirs.staging / f"{uuid.uuid4().hex}-{os.getpid()}"
    folder.mkdir()
    try:
        return stage(path, folder / "pkg"), folder
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


# ---- checks before anything is written -----------------------------------------------------------


def _server_json(server: PackageServer) -> dict[str, Any]:
    """The servers.json entry (app/mcp/catalog.py's shape): the preview confirmed its launch
    spec, and a stdio server from someone else's package runs in the sandbox (decision 365)."""
    stdio = server.transport == "stdio"
    entry = ServerEntry(
        name=server.name,
        transport=server.transport,
        source="user",
        url=server.url,
        header_names=tuple(server.header_names),
        command=server.command,
        args=tuple(server.args),
        env=dict(server.env),
        secret_env=tuple(server.secret_env),
    )
    return {
        "transport": server.transport,
        "display_name": server.display_name,
        "description": server.description,
        "url": server.url,
        "header_names": list(server.header_names),
        "command": server.command,
        "args": list(server.args),
        "env": dict(server.env),
        "secret_env": list(server.secret_env),
        "confirmed_launch": entry.launch_id() if stdio else None,
        "sandbox": stdio,
        "network": server.network,
    }


def _read_servers(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PackageRefused("package.mcp_catalog", f"the MCP catalog cannot be read ({exc})") from None
    servers = raw.get("servers") if isinstance(raw, dict) else None
    return dict(servers) if isinstance(servers, dict) else {}


def _check_free(
    db: Database,
    dirs: PackageDirs,
    manifest: PackageManifest,
    old: Installed | None,
    builtin_servers: set[str],
) -> None:
    owned_skills = {s.name for s in old.manifest.skills} if old else set()
    owned_servers = {s.name.casefold() for s in old.manifest.mcp_servers} if old else set()
    for skill in manifest.skills:
        taken = (dirs.skills_user / skill.name).exists() or (
            dirs.skills_user.parent / "agent" / skill.name
        ).exists()
        if taken and skill.name not in owned_skills:
            raise PackageRefused("package.skill_exists", f"a Skill named '{skill.name}' is already installed")
    present = {n.casefold() for n in _read_servers(dirs.servers_json)} | {
        n.casefold() for n in builtin_servers
    }
    for server in manifest.mcp_servers:
        if server.name.casefold() in present and server.name.casefold() not in owned_servers:
            raise PackageRefused(
                "package.server_exists", f"an MCP server named '{server.name}' already exists"
            )
    name = manifest.agent.name
    if name.casefold() == DEFAULT_AGENT_ID:
        raise PackageRefused("package.agent_exists", "a package cannot replace the default agent")
    rows = db.query("SELECT id FROM agents WHERE name = ? COLLATE NOCASE", (name,))
    if rows and (old is None or rows[0]["id"] != old.agent_id):
        raise PackageRefused("package.agent_exists", f"an agent named '{name}' already exists")
    old_tasks = {t.name.casefold() for t in old.manifest.tasks} if old else set()
    for task in manifest.tasks:
        if task.name.casefold() in old_tasks:
            continue
        if db.query("SELECT 1 FROM tasks WHERE name = ? COLLATE NOCASE", (task.name,)):
            raise PackageRefused(
                "package.task_exists", f"a scheduled task named '{task.name}' already exists"
            )


# ---- install -------------------------------------------------------------------------------------


def install(
    db: Database,
    dirs: PackageDirs,
    staged: StagedPackage,
    folder: Path,
    *,
    builtin_servers: set[str],
    time_zone: str,
    hook: Hook = _no_hook,
) -> str:
    """Install `staged` (staged in `folder`); returns the agent's id. `folder` is consumed."""
    manifest = staged.manifest
    old = installed(db, manifest.id)
    if old is not None and manifest.version <= old.manifest.version:
        raise PackageRefused(
            "package.not_newer",
            f"version {old.manifest.version} of '{manifest.id}' is installed;"
            f" this is version {manifest.version}",
        )
    _check_free(db, dirs, manifest, old, builtin_servers)
    txid = folder.name
    # The new servers.json: the old version's entries out, this version's in.
    servers = _read_servers(dirs.servers_json)
    if old is not None:
        dropped = {s.name.casefold() for s in old.manifest.mcp_servers}
        servers = {k: v for k, v in servers.items() if k.casefold() not in dropped}
    for server in manifest.mcp_servers:
        servers[server.name] = _server_json(server)
    staged_servers = folder / "servers.json"
    staged_servers.write_text(
        json.dumps({"version": 1, "servers": servers}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    moves: list[tuple[str | None, str, str]] = []
    for skill in manifest.skills:
        moves.append((str(staged.root / "skills" / skill.name), str(dirs.skills_user / skill.name),
                      str(folder / "old" / skill.name)))  # fmt: skip
    kept = {s.name for s in manifest.skills}
    for skill in old.manifest.skills if old else []:
        if skill.name not in kept:
            moves.append((None, str(dirs.skills_user / skill.name), str(folder / "old" / skill.name)))
    plan = {"txid": txid, "moves": moves, "servers": str(dirs.servers_json)}
    _write_synced(folder / "plan.json", json.dumps(plan))
    hook("install:staged")
    agent_id = _commit(db, manifest, staged.digest, old, txid, time_zone)
    hook("install:committed")
    publish(folder, hook)
    return agent_id


def _write_synced(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())  # not a write: the install's journal, in its own staging folder


def _commit(
    db: Database, manifest: PackageManifest, digest: str, old: Installed | None, txid: str, zone: str
) -> str:
    now = utc_now_iso()
    spec = manifest.agent
    try:
        with db.transaction() as conn:
            if old is None:
                agent_id = uuid.uuid4().hex[:12]
                conn.execute(
                    "INSERT INTO agents (id, name, spec, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (agent_id, spec.name, spec.model_dump_json(), now, now),
                )
            else:
                agent_id = old.agent_id
                (current,) = conn.execute("SELECT spec FROM agents WHERE id = ?", (agent_id,)).fetchone()
                mine = AgentSpec.model_validate_json(current)
                # What the user chose stays theirs: model, approval mode, workspace, memory.
                spec = spec.model_copy(
                    update={
                        "provider_id": mine.provider_id,
                        "model": mine.model,
                        "approval_mode": mine.approval_mode,
                        "workspace": mine.workspace,
                        "memory": mine.memory,
                    }
                )
                conn.execute(
                    "UPDATE agents SET name = ?, spec = ?, updated_at = ? WHERE id = ?",
                    (spec.name, spec.model_dump_json(), now, agent_id),
                )
            _commit_tasks(conn, manifest, old, agent_id, zone)
            for base in manifest.knowledge_bases:
                conn.execute(
                    "INSERT OR IGNORE INTO kb_bases (name, created_at, updated_at) VALUES (?,?,?)",
                    (base.name, now, now),
                )
            conn.execute(
                "INSERT INTO agent_packages (agent_id, package_id, version, digest, manifest, txid,"
                " installed_at)"
                " VALUES (?,?,?,?,?,?,?) ON CONFLICT(agent_id) DO UPDATE SET version = excluded.version,"
                " digest = excluded.digest, manifest = excluded.manifest, txid = excluded.txid,"
                " installed_at = excluded.installed_at",
                (agent_id, manifest.id, manifest.version, digest, manifest.model_dump_json(), txid, now),
            )
    except sqlite3.IntegrityError as exc:
        raise PackageRefused(
            "package.conflict", f"the package conflicts with what is installed ({exc})"
        ) from None
    return agent_id


def _commit_tasks(
    conn: sqlite3.Connection, manifest: PackageManifest, old: Installed | None, agent_id: str, zone: str
) -> None:
    """New or changed tasks are written paused; unchanged ones are left as they are."""
    before = {t.name.casefold(): t for t in old.manifest.tasks} if old else {}
    now = datetime.now(UTC)
    for task in manifest.tasks:
        if before.pop(task.name.casefold(), None) == task:
            continue
        draft = TaskDraft(
            name=task.name,
            prompt=task.prompt,
            schedule=task.schedule,
            approval_mode=task.approval_mode,
            chat_mode=task.chat_mode,
            missed_policy=task.missed_policy,
            enabled=False,
            agent_id=agent_id,
        )
        conn.execute("DELETE FROM tasks WHERE name = ? COLLATE NOCASE", (task.name,))
        conn.execute(
            "INSERT INTO tasks (id, name, draft, enabled, time_zone, anchor, next_run, created_at,"
            " updated_at)"
            " VALUES (?,?,?,0,?,?,NULL,?,?)",
            (new_id(), task.name, draft.model_dump_json(), zone, to_db(now), to_db(now), to_db(now)),
        )
    for gone in before.values():
        conn.execute("DELETE FROM tasks WHERE name = ? COLLATE NOCASE", (gone.name,))


# ---- publish and recovery ------------------------------------------------------------------------


def publish(folder: Path, hook: Hook = _no_hook) -> None:
    """Step 3, idempotent: every move is done or redone from where a kill left it."""
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    for src, dst, old in plan["moves"]:
        src_path, dst_path, old_path = (Path(src) if src else None), Path(dst), Path(old)
        if src_path is None:
            if dst_path.exists() and not old_path.exists():
                old_path.parent.mkdir(parents=True, exist_ok=True)
                os.rename(dst_path, old_path)
            continue
        if not src_path.exists():
            continue  # moved before the kill
        if dst_path.exists():
            old_path.parent.mkdir(parents=True, exist_ok=True)
            os.rename(dst_path, old_path)
        dst_path.parent.mkdir(parents=True, exist_ok=True)
        os.rename(src_path, dst_path)
        hook("publish:moved")
    staged_servers = folder / "servers.json"
    if staged_servers.exists():
        target = Path(plan["servers"])
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged_servers, target)  # not a write: moves the staged, complete file into place
    shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # this process's own install, still running
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def recover(db: Database, dirs: PackageDirs) -> None:
    """Finish committed installs, remove abandoned staging folders (of processes that are gone)."""
    if not dirs.staging.is_dir():
        return
    committed = {r["txid"] for r in db.query("SELECT txid FROM agent_packages")}
    for folder in dirs.staging.iterdir():
        pid_text = folder.name.rpartition("-")[2]
        if pid_text.isdigit() and _alive(int(pid_text)):
            continue
        if folder.name in committed and (folder / "plan.json").exists():
            publish(folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def store_secrets(
    set_secret: Callable[[str, str], None], manifest: PackageManifest, values: Mapping[str, str]
) -> list[tuple[str, str, str]]:
    """Keep the given secret inputs in the keyring; returns the (server, name, kind) left unset."""
    from app.mcp.config import secret_name

    unset: list[tuple[str, str, str]] = []
    for server in manifest.mcp_servers:
        for kind, names in (("env", server.secret_env), ("header", server.header_names)):
            for name in names:
                value = values.get(f"{server.name}/{name}", "")
                if value:
                    set_secret(secret_name(server.name, kind, name), value)  # type: ignore[arg-type]
                else:
                    unset.append((server.name, name, kind))
    return unset

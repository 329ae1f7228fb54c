"""Read a cdy-agent workspace (`<workspace>/.cdy-agent/`, the layout of cdy-agent 0.1.x):

    cdy-agent.sqlite3      sessions + messages (user/assistant turns), memories + memory_tags
    notes.json, todos.json {"version": 1, "items": [...]}
    shell-approvals.json   {"version": 1, "allowed_commands": [[argv...], ...]} → exec grants
    skills/<name>/SKILL.md

The database is copied to a private temporary folder before it is opened, so the source folder
is never written (SQLite may otherwise create -wal/-shm files next to it).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from app.contracts.messages import Message
from app.contracts.tools import GrantKey
from app.importer.common import read_text, sha256_text, skill_folders, skill_item, title_from, write_chat
from app.importer.items import Item, Skip, Target, invalid
from app.store.ids import is_valid_id

SOURCE = "cdy_agent"
DATA_DIR = ".cdy-agent"
DB_NAME = "cdy-agent.sqlite3"
MAX_DB_BYTES = 512 * 1024 * 1024


def find_data_dir(path: Path) -> Path | None:
    if path.name == DATA_DIR and path.is_dir():
        return path
    candidate = path / DATA_DIR
    return candidate if candidate.is_dir() and not candidate.is_symlink() else None


def _read_db(data_dir: Path) -> tuple[dict[str, list[tuple[str, str]]], list[tuple[str, str, list[str]]]]:
    """(sessions: id -> [(role, content)], memories: [(id, content, tags)]) from a private copy."""
    source = data_dir / DB_NAME
    if source.is_symlink() or not source.is_file():
        raise ValueError(f"{DB_NAME} is not a regular file")
    if source.stat().st_size > MAX_DB_BYTES:
        raise ValueError(f"{DB_NAME} is too large")
    with tempfile.TemporaryDirectory(prefix="cashcode-import-") as tmp:
        for suffix in ("", "-wal"):
            if Path(f"{source}{suffix}").is_file():
                shutil.copyfile(f"{source}{suffix}", Path(tmp) / f"{DB_NAME}{suffix}")
        conn = sqlite3.connect(Path(tmp) / DB_NAME)
        try:
            sessions: dict[str, list[tuple[str, str]]] = {}
            for sid, role, content in conn.execute(
                "SELECT session_id, role, content FROM messages ORDER BY session_id, sequence"
            ):
                sessions.setdefault(str(sid), []).append((str(role), str(content)))
            for (sid,) in conn.execute("SELECT id FROM sessions"):
                sessions.setdefault(str(sid), [])
            memories = _read_memories(conn)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{DB_NAME} cannot be read: {exc}") from exc
        finally:
            conn.close()
    return sessions, memories


def _read_memories(conn: sqlite3.Connection) -> list[tuple[str, str, list[str]]]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "memories" not in tables:
        return []  # a version-1 database: sessions only
    tags: dict[str, list[str]] = {}
    for memory_id, tag in conn.execute("SELECT memory_id, tag FROM memory_tags ORDER BY tag"):
        tags.setdefault(str(memory_id), []).append(str(tag))
    rows = conn.execute("SELECT id, content FROM memories ORDER BY created_at, id").fetchall()
    return [(str(i), str(c), tags.get(str(i), [])) for i, c in rows]


def _session_item(session_id: str, rows: list[tuple[str, str]]) -> Item:
    key = f"{SOURCE}:session:{session_id}"
    if not is_valid_id(session_id):
        return invalid("chat", session_id[:40], key, "the session id is not a UUID")
    messages = [Message(role="user" if r == "user" else "assistant", content=c) for r, c in rows]
    if not messages or any(r not in ("user", "assistant") or not c.strip() for r, c in rows):
        return invalid("chat", session_id, key, "the session has no messages or an invalid one")
    title = title_from(messages)

    async def apply(target: Target) -> str:
        if note := write_chat(target, session_id, title, messages):
            item.notes.append(note)
        return session_id

    item = Item(kind="chat", name=title, key=key, apply=apply)
    return item


def _memory_item(memory_id: str, content: str, tags: list[str]) -> Item:
    key = f"{SOURCE}:memory:{memory_id}"
    if not content.strip():
        return invalid("memory", memory_id, key, "empty memory")

    async def apply(target: Target) -> str:
        data = await target.call("memories.add", {"content": content, "tags": tags})
        return str(data.get("id", ""))

    label = " ".join(content.split())[:60]
    return Item(kind="memory", name=label, key=key, route="memories.add", apply=apply)


def _versioned_items(path: Path, key_name: str) -> list[Any]:
    document = json.loads(read_text(path))
    if (
        not isinstance(document, dict)
        or document.get("version") != 1
        or not isinstance(document.get(key_name), list)
    ):
        raise ValueError(f"{path.name} is not a version-1 {key_name} document")
    items: list[Any] = document[key_name]
    return items


def _note_item(note: object) -> Item:
    note_id = str(note.get("id", "")) if isinstance(note, dict) else ""
    key = f"{SOURCE}:note:{note_id}"
    if not isinstance(note, dict) or not isinstance(note.get("title"), str) or not note["title"].strip():
        return invalid("note", note_id or "(note)", key, "a note needs a title")
    if not isinstance(note.get("content"), str):
        return invalid("note", note["title"], key, "a note needs text content")
    title, content = note["title"].strip()[:200], note["content"]

    async def apply(target: Target) -> str:
        return str((await target.call("notes.create", {"title": title, "content": content})).get("id", ""))

    return Item(kind="note", name=title, key=key, route="notes.create", apply=apply)


def _todo_item(todo: object) -> Item:
    todo_id = str(todo.get("id", "")) if isinstance(todo, dict) else ""
    key = f"{SOURCE}:todo:{todo_id}"
    if not isinstance(todo, dict) or not isinstance(todo.get("text"), str) or not todo["text"].strip():
        return invalid("todo", todo_id or "(todo)", key, "a todo needs text")
    text, completed = todo["text"].strip()[:1000], todo.get("completed") is True

    async def apply(target: Target) -> str:
        created = await target.call("todos.create", {"title": text})
        new_id = str(created.get("id", ""))
        if completed and new_id and target.has_route("todos.complete"):
            await target.call("todos.complete", {"id": new_id})
        return new_id

    return Item(kind="todo", name=text[:60], key=key, route="todos.create", apply=apply)


def _approval_item(argv: object, workspace: str) -> Item:
    # The whole argv: a grant's payload must never hide behind a cut (issue 23 item 4).
    shown = json.dumps(argv, ensure_ascii=False) if isinstance(argv, list) else "(argv)"
    key = f"{SOURCE}:approval:{sha256_text(json.dumps([workspace, argv], default=str))}"
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and a for a in argv):
        return invalid("approval", shown, key, "an approval is a non-empty list of non-empty strings")
    grant = GrantKey(kind="exec", key=_as_exec_runs_it(argv, workspace), workspace=workspace)

    async def apply(target: Target) -> str:
        if not target.add_grant(grant):
            raise Skip("already_imported", "the same grant exists already")
        return shown  # stored disabled: the user enables it in the approvals ledger

    return Item(kind="approval", name=shown, key=key, apply=apply)


def _as_exec_runs_it(argv: list[str], workspace: str) -> tuple[str, ...]:
    """The argv as `exec` would key its grant: the program resolved to an absolute path the way
    `exec` resolves it (a bare `python3` never matched the resolved `/usr/bin/python3`). A
    program that cannot be found here stays as written (the grant is off until enabled)."""
    from app.contracts.tools import ToolError
    from app.tools.exec import resolve_program

    try:
        program = resolve_program(argv[0], cwd=Path(workspace or "."), path_env=os.environ.get("PATH", ""))
    except ToolError:
        return tuple(argv)
    return (program, *argv[1:])


def _file_items(data_dir: Path, name: str, list_key: str, make: Any, kind: str) -> list[Item]:
    path = data_dir / name
    if not path.exists():
        return []
    try:
        entries = _versioned_items(path, list_key)
    except (OSError, ValueError) as exc:
        return [invalid(kind, name, f"{SOURCE}:{kind}:unreadable", str(exc))]
    return [make(entry) for entry in entries]


def read_cdy(data_dir: Path) -> list[Item]:
    items: list[Item] = []
    workspace = os.path.realpath(data_dir.parent)
    if (data_dir / DB_NAME).exists():
        try:
            sessions, memories = _read_db(data_dir)
        except (OSError, ValueError) as exc:
            items.append(invalid("chat", DB_NAME, f"{SOURCE}:db:unreadable", str(exc)))
        else:
            items += [_session_item(sid, rows) for sid, rows in sessions.items()]
            items += [_memory_item(*memory) for memory in memories]
    items += _file_items(data_dir, "notes.json", "items", _note_item, "note")
    items += _file_items(data_dir, "todos.json", "items", _todo_item, "todo")
    items += _file_items(
        data_dir,
        "shell-approvals.json",
        "allowed_commands",
        lambda argv: _approval_item(argv, workspace),
        "approval",
    )
    items += [skill_item(SOURCE, folder) for folder in skill_folders(data_dir / "skills")]
    return items

"""Read an earlier CashCode data folder (the layout its README documents).

<root>[/server]/memory/<chat_id>/history.jsonl   chats (cursor, role, content, tool_calls,
                                                 tool_call_id; `summary` records with
                                                 keep_from_cursor)
<root>[/server]/memory/MEMORY.md, SOUL.md        long-term memory, persona
<root>[/server]/data/skills/{user,agent}/<name>/ Skills
<root>[/server]/data/mcp/servers.json            user MCP servers (headers are secrets)
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.contracts.messages import Message, ToolCall
from app.importer.common import read_text, sha256_text, skill_folders, skill_item, title_from, write_chat
from app.importer.items import Item, Skip, Target, invalid
from app.mcp.catalog import mask_url
from app.store.ids import is_valid_id

SOURCE = "cashcode"
MAX_HISTORY_BYTES = 64 * 1024 * 1024
_IMPORT_NS = uuid.UUID("6f6c6d2e-6361-7368-636f-64652d696d70")


def find_root(path: Path) -> Path | None:
    for base in (path, path / "server"):
        if (
            (base / "memory").is_dir()
            or (base / "data" / "skills").is_dir()
            or (base / "data" / "mcp").is_dir()
        ):
            return base
    return None


@dataclass
class History:
    messages: list[Message] = field(default_factory=list)
    source_cursors: list[int] = field(default_factory=list)
    summary: tuple[str, int] | None = None  # (content, keep_from_cursor) of the last summary
    keep_from_next: bool = False  # the summary had no keep_from_cursor: it keeps what follows it
    problems: list[str] = field(default_factory=list)


def _tool_calls(raw: object) -> tuple[ToolCall, ...]:
    if not isinstance(raw, list):
        raise ValueError("tool_calls is not a list")
    calls = []
    for call in raw:
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            raise ValueError("a tool call has no id")
        nested = call.get("function")
        function: dict[str, Any] = nested if isinstance(nested, dict) else call
        name, arguments = function.get("name"), function.get("arguments", "{}")
        if not isinstance(name, str) or not name:
            raise ValueError("a tool call has no name")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(ToolCall(id=call["id"], name=name, arguments=text))
    return tuple(calls)


def _message(record: dict[str, Any]) -> Message | None:
    role, content = record.get("role"), record.get("content", "")
    if not isinstance(content, str):
        raise ValueError("content is not text")
    if role in ("user", "assistant"):
        if not content.strip():
            raise ValueError(f"empty {role} message")
        return Message(role=role, content=content)
    if role == "tool_calls":
        return Message(role="assistant", content="", tool_calls=_tool_calls(record.get("tool_calls")))
    if role == "tool":
        call_id = record.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError("a tool result has no tool_call_id")
        name = record.get("name") if isinstance(record.get("name"), str) else None
        return Message(role="tool", content=content, tool_call_id=call_id, name=name)
    raise ValueError(f"unknown role {str(role)[:20]!r}")


def parse_history(text: str) -> History:
    history = History()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            cursor = record.get("cursor", number)
            if not isinstance(cursor, int):
                raise ValueError("cursor is not a number")
            if record.get("role") == "summary":
                keep = record.get("keep_from_cursor")
                if not isinstance(record.get("content"), str) or not isinstance(keep, int | None):
                    raise ValueError("a summary needs content (and keep_from_cursor as a number)")
                # Without keep_from_cursor the summary sits before the first message after it.
                history.summary = (record["content"], keep if keep is not None else cursor + 1)
                history.keep_from_next = keep is None
                continue
            message = _message(record)
        except (ValueError, RecursionError) as exc:
            history.problems.append(f"line {number}: {exc if str(exc) else 'not valid JSON'}")
            continue
        if message is not None:
            if history.keep_from_next and history.summary is not None:
                history.summary = (history.summary[0], cursor)
                history.keep_from_next = False
            history.messages.append(message)
            history.source_cursors.append(cursor)
    _drop_unpaired_tool_messages(history)
    return history


def _drop_unpaired_tool_messages(history: History) -> None:
    """Providers refuse a tool result without its call and a call without its result (a corrupt
    line can leave either): drop the orphans, say so."""
    answered = {m.tool_call_id for m in history.messages if m.role == "tool"}
    called: set[str] = set()
    kept: list[tuple[Message, int]] = []
    for message, cursor in zip(history.messages, history.source_cursors, strict=True):
        if message.tool_calls:
            calls = tuple(c for c in message.tool_calls if c.id in answered)
            if len(calls) != len(message.tool_calls):
                history.problems.append(f"cursor {cursor}: a tool call without its result was dropped")
            if not calls and not message.content.strip():
                continue
            called |= {c.id for c in calls}
            message = message.model_copy(update={"tool_calls": calls})
        elif message.role == "tool" and message.tool_call_id not in called:
            history.problems.append(f"cursor {cursor}: a tool result without its call was dropped")
            continue
        kept.append((message, cursor))
    history.messages = [m for m, _ in kept]
    history.source_cursors = [c for _, c in kept]


def chat_id_for(folder_name: str) -> str:
    return folder_name if is_valid_id(folder_name) else str(uuid.uuid5(_IMPORT_NS, folder_name))


def _chat_items(folder: Path) -> list[Item]:
    key = f"{SOURCE}:chat:{folder.name}"
    try:
        history = parse_history(read_text(folder / "history.jsonl", MAX_HISTORY_BYTES))
    except (OSError, ValueError) as exc:
        return [invalid("chat", folder.name, key, f"history.jsonl: {exc}")]
    if not history.messages:
        return [invalid("chat", folder.name, key, "no readable messages")]
    chat_id = chat_id_for(folder.name)
    title = title_from(history.messages)

    async def apply_chat(target: Target) -> str:
        if note := write_chat(target, chat_id, title, history.messages):
            chat_item.notes.append(note)
        return chat_id

    chat_item = Item(kind="chat", name=title, key=key, apply=apply_chat)
    items = [chat_item]
    items += [invalid("message", f"{title} ({p.split(':')[0]})", f"{key}:{p}", p) for p in history.problems]
    if history.summary is not None:
        content, keep_from = history.summary
        # A fresh chat numbers its messages 1..N in order, so the retained tail starts at the
        # position of the first message whose old cursor is >= keep_from_cursor.
        positions = [i for i, c in enumerate(history.source_cursors, start=1) if c >= keep_from]
        keep_from_new = positions[0] if positions else len(history.messages) + 1

        async def apply_summary(target: Target) -> str:
            if not target.chat_exists(chat_id):
                raise Skip("failed", "its chat was not imported")
            payload = {"chat_id": chat_id, "content": content, "keep_from_cursor": keep_from_new}
            await target.call("memory.import_summary", payload)
            return chat_id

        items.append(
            Item(
                kind="summary",
                name=f"{title} (summary)",
                key=f"{key}:summary:{sha256_text(content)}",
                route="memory.import_summary",
                apply=apply_summary,
            )
        )
    return items


def _document_item(kind: str, path: Path, get_route: str, save_route: str) -> Item:
    try:
        text = read_text(path)
    except (OSError, ValueError) as exc:
        return invalid(kind, path.name, f"{SOURCE}:{kind}:unreadable", str(exc))
    key = f"{SOURCE}:{kind}:{sha256_text(text)}"
    if not text.strip():
        return invalid(kind, path.name, key, "the file is empty")

    async def apply(target: Target) -> str:
        if not target.has_route(get_route):
            raise Skip("unavailable", f"this build has no `{get_route}` route to check for existing text")
        current = await target.call(get_route, {})
        existing = str(current.get("text", ""))
        if existing.strip() == text.strip():
            raise Skip("already_imported", "the same text is there already")
        # The built-in persona (no SOUL.md yet) is nobody's text: importing over it is no conflict.
        if existing.strip() and current.get("is_default") is not True:
            raise Skip("conflict", f"CashCode already has a {path.name} with other text; merge it by hand")
        payload: dict[str, Any] = {"text": text}
        if save_route == "memory.save" and current.get("hash"):
            payload["base_hash"] = current["hash"]
        await target.call(save_route, payload)
        return path.name

    return Item(kind=kind, name=path.name, key=key, route=save_route, apply=apply)


def _mcp_entries(raw: object) -> list[tuple[str, object]]:
    if isinstance(raw, dict) and isinstance(raw.get("servers"), list | dict):
        raw = raw["servers"]
    if isinstance(raw, dict):
        return [(str(k), v) for k, v in raw.items()]
    if isinstance(raw, list):
        return [(str(e.get("name", "")) if isinstance(e, dict) else "", e) for e in raw]
    return []


def _mcp_item(name: str, entry: object) -> Item:
    key = f"{SOURCE}:mcp:{name}:{sha256_text(json.dumps(entry, sort_keys=True, default=str))}"
    if not isinstance(entry, dict) or not name:
        return invalid("mcp_server", name or "(unnamed)", key, "not a server entry with a name")
    url = entry.get("url")
    headers = entry.get("headers") or {}
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return invalid("mcp_server", name, key, "needs an http(s) url")
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        return invalid("mcp_server", name, key, "headers must map names to text")
    # MCP server names are lowercase now (app/mcp/config.py NEW_NAME_RE): `Docs` arrives as
    # `docs`, still shown as "Docs".
    payload: dict[str, Any] = {"name": name.lower(), "transport": entry.get("transport", "sse"), "url": url}
    for field_name, source_name in (
        ("display_name", "display_name"),
        ("display_name", "title"),
        ("description", "description"),
    ):
        value = entry.get(source_name)
        if isinstance(value, str) and value and field_name not in payload:
            payload[field_name] = value[:100] if field_name == "display_name" else value
    if name != name.lower():
        payload.setdefault("display_name", name[:100])
    if headers:
        payload["headers"] = {str(k): v for k, v in headers.items()}  # the route keeps them in the keyring

    async def apply(target: Target) -> str:
        await target.call("mcp.servers.create", payload)
        return name

    # The plan says where the server is (query tokens masked), not only its name.
    shown = f"{name} ({mask_url(url)})"
    return Item(kind="mcp_server", name=shown, key=key, route="mcp.servers.create", apply=apply)


def read_cashcode(root: Path) -> list[Item]:
    items: list[Item] = []
    memory = root / "memory"
    if memory.is_dir():
        for folder in sorted(p for p in memory.iterdir() if p.is_dir() and not p.is_symlink()):
            if (folder / "history.jsonl").exists():
                items += _chat_items(folder)
        for name, kind, get_route, save_route in (
            ("MEMORY.md", "memory_file", "memory.get", "memory.save"),
            ("SOUL.md", "soul", "soul.get", "soul.save"),
        ):
            if (memory / name).exists():
                items.append(_document_item(kind, memory / name, get_route, save_route))
    for source in ("user", "agent"):
        items += [skill_item(SOURCE, folder) for folder in skill_folders(root / "data" / "skills" / source)]
    servers = root / "data" / "mcp" / "servers.json"
    if servers.exists():
        try:
            entries = _mcp_entries(json.loads(read_text(servers)))
        except (OSError, ValueError) as exc:
            items.append(invalid("mcp_server", "servers.json", f"{SOURCE}:mcp:unreadable", str(exc)))
        else:
            items += [_mcp_item(name, entry) for name, entry in entries]
    return items

"""Pieces both source readers use: Skill folders, chat turns, bounded file reads."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from app.contracts.messages import Message
from app.importer.items import Item, Skip, Target, invalid
from app.skills.frontmatter import parse_frontmatter
from app.skills.manifest import build_manifest

MAX_TEXT_BYTES = 2 * 1024 * 1024  # MEMORY.md, SOUL.md, history lines: generous, still bounded
MAX_SKILL_MD_BYTES = 256 * 1024


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A regular file's UTF-8 text; ValueError with a reason otherwise (FIFOs, devices, huge)."""
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path.name} is not a regular file")
    if path.stat().st_size > limit:
        raise ValueError(f"{path.name} is larger than {limit // 1024} KiB")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name} is not UTF-8 text") from exc


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def skill_item(source: str, folder: Path) -> Item:
    """A Skill folder, validated like the catalog does, imported through `skills.import`."""
    label = folder.name
    try:
        text = read_text(folder / "SKILL.md", MAX_SKILL_MD_BYTES)
    except (OSError, ValueError) as exc:
        return invalid("skill", label, f"{source}:skill:{label}:unreadable", f"SKILL.md: {exc}")
    key = f"{source}:skill:{label}:{sha256_text(text)}"
    parsed = parse_frontmatter(text)
    if not hasattr(parsed, "data"):
        return invalid("skill", label, key, getattr(parsed, "message", "SKILL.md has no valid frontmatter"))
    manifest = build_manifest(parsed.data)
    if isinstance(manifest, list):
        return invalid("skill", label, key, "; ".join(p.message for p in manifest))
    if manifest.name != folder.name:
        return invalid(
            "skill", label, key, f"the folder is {folder.name!r} but SKILL.md names {manifest.name!r}"
        )

    async def apply(target: Target) -> str:
        await target.call("skills.import", {"path": str(folder)})
        return label

    return Item(kind="skill", name=label, key=key, route="skills.import", apply=apply)


def skill_folders(root: Path) -> list[Path]:
    if not root.is_dir() or root.is_symlink():
        return []
    return sorted(
        p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")
    )


def split_turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Each user message starts a turn; anything before the first one joins it."""
    turns: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def title_from(messages: Sequence[Message]) -> str:
    first = next((m.content for m in messages if m.role == "user" and m.content.strip()), "Imported chat")
    line = " ".join(first.split())
    return line[:80] or "Imported chat"


def write_chat(target: Target, chat_id: str, title: str, messages: Sequence[Message]) -> str:
    """Store the chat with all its turns in one transaction (a kill leaves all of it or none).
    A chat of that id that an interrupted run wrote (an older build wrote turn by turn, and any
    build can be stopped between writing a chat and recording it) is detected by its import turn
    ids and content: a finished one is kept, a partial one is completed in one transaction;
    anything else with that id is a conflict, left unchanged. Returns a note for the report."""
    turns = [(f"import-{i}", turn) for i, turn in enumerate(split_turns(messages), start=1)]
    wanted = [(tid, m) for tid, turn in turns for m in turn]
    existing = target.chat_messages(chat_id)
    if existing is None:
        target.write_chat(chat_id, title, turns, replace=False)
        return ""
    if len(existing) <= len(wanted) and all(
        tid == want_tid and _same(have, want)
        for (tid, have), (want_tid, want) in zip(existing, wanted, strict=False)
    ):
        if len(existing) == len(wanted):
            return "written by an earlier, interrupted run; now recorded"
        target.write_chat(chat_id, title, turns, replace=True)
        return f"completed: an interrupted run had written {len(existing)} of its {len(wanted)} messages"
    raise Skip("conflict", "a chat with this id exists already; it was left unchanged")


def _same(a: Message, b: Message) -> bool:
    return (a.role, a.content, a.tool_call_id, a.name) == (b.role, b.content, b.tool_call_id, b.name) and [
        (c.id, c.name, c.arguments) for c in a.tool_calls
    ] == [(c.id, c.name, c.arguments) for c in b.tool_calls]

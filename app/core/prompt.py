"""The system prompt of a turn: persona (SOUL.md or the built-in default) + where and when."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

DEFAULT_PERSONA = """\
You are CashCode, a helpful personal AI agent running on the user's own computer.
Be direct and accurate. Use the tools when they help: read before you write, prefer small
precise edits, and explain briefly what you did. Never invent file contents or command output.
When a tool call is denied, respect that and continue without it."""

SOUL_FILE = "SOUL.md"
MAX_SOUL_CHARS = 20_000  # a persona longer than this is cut (the editor refuses to save it)


def load_persona(data_dir: Path) -> str:
    """`<data>/SOUL.md` when present and readable, else the built-in persona."""
    path = data_dir / SOUL_FILE
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return DEFAULT_PERSONA
    return text[:MAX_SOUL_CHARS] if text else DEFAULT_PERSONA


def build_system_prompt(persona: str, workspace: Path, now: datetime) -> str:
    return (
        f"{persona}\n\n"
        f"Workspace folder (file and command tools work only inside it): {workspace}\n"
        f"Current date: {now.strftime('%Y-%m-%d (%A)')}"
    )

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from app.api.chats import AUTO_TITLE_CHARS, auto_title
from app.core.prompt import DEFAULT_PERSONA, build_system_prompt, load_persona


def test_the_built_in_persona_is_used_without_a_soul_file(tmp_path: Path) -> None:
    assert load_persona(tmp_path) == DEFAULT_PERSONA


def test_soul_md_replaces_the_default_persona(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("You are Cash, terse and kind.\n", encoding="utf-8")
    assert load_persona(tmp_path) == "You are Cash, terse and kind."


def test_an_empty_or_unreadable_soul_file_falls_back_to_the_default(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_bytes(b"\xff\xfe\x00bad")
    assert load_persona(tmp_path) == DEFAULT_PERSONA


def test_the_system_prompt_names_the_workspace_and_the_date() -> None:
    prompt = build_system_prompt("Persona.", Path("/home/me/project"), datetime(2026, 3, 4, 12, 0))
    assert prompt.startswith("Persona.")
    assert "/home/me/project" in prompt and "2026-03-04" in prompt


def test_auto_titles_use_the_whole_message_collapsed_and_trimmed() -> None:
    assert auto_title("\n\n  Plan   my trip  \nmore") == "Plan my trip more"
    long = auto_title("word " * 40)
    assert len(long) == AUTO_TITLE_CHARS and long.endswith("…")
    assert auto_title("   ") == "New chat"

"""A typed `@name` selects a Skill only at the start of the message or after whitespace, and an
unknown one is reported with the closest installed names (the Skills part of the prompt)."""

from __future__ import annotations

import os
from pathlib import Path

from app.contracts.turn import TurnSpec
from app.skills.capability import SkillsCapability
from app.skills.runtime import RuntimeConfig, SkillRuntime

from .helpers import skill_md, write_skill


def _section(tmp_path: Path, text: str) -> str:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    user = tmp_path / "data" / "skills" / "user"
    write_skill(user, "pdf-tools", skill_md("pdf-tools", description="Fill PDF forms."))
    write_skill(user, "broken", skill_md("broken", description=""))
    config = RuntimeConfig(
        data_dir=tmp_path / "data",
        home=tmp_path / "home",
        workspace=lambda: ws,
        env={"PATH": os.environ.get("PATH", "")},
        builtin_dir=tmp_path / "builtin",
    )
    cap = SkillsCapability(SkillRuntime(config, None))
    return cap.prompt_section(TurnSpec(chat_id="c", turn_id="t", user_text=text, provider_id="p", model="m"))


def test_at_name_at_the_start_or_after_whitespace_selects(tmp_path: Path) -> None:
    for text in ("@pdf-tools fill this", "please\n@pdf-tools.", "use @pdf-tools, thanks"):
        section = _section(tmp_path, text)
        assert "selected these Skills" in section and "- pdf-tools: Fill PDF forms." in section, text


def test_at_name_inside_a_word_does_not_select(tmp_path: Path) -> None:
    for text in ("mail me@pdf-tools", "x(@pdf-tools)", "see@pdf-tools", "@pdf-tools_x"):
        assert "selected these Skills" not in _section(tmp_path, text), text


def test_an_unknown_at_name_is_reported_with_the_closest_names(tmp_path: Path) -> None:
    section = _section(tmp_path, "@pdf-tool do it")
    assert "- pdf-tool: no installed Skill has this name; closest names: pdf-tools" in section
    assert "- broken: installed but invalid" in _section(tmp_path, "@broken go")

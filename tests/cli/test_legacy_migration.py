"""SPEC S2.5: legacy DEEPSEEK_API_KEY / DEEPSEEK_API_BASE are migrated once into a profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import VALID_KEY, base_env, cashcode


def test_legacy_deepseek_variables_become_a_provider_once(home: Path, fake_llm: Any) -> None:
    env = base_env(home)
    env.update(DEEPSEEK_API_KEY=VALID_KEY, DEEPSEEK_API_BASE=fake_llm.openai_base_url)
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr

    settings_text = (home / "config" / "settings.json").read_text(encoding="utf-8")
    settings = json.loads(settings_text)
    assert [p["id"] for p in settings["providers"]] == ["deepseek"]
    assert settings["providers"][0]["base_url"] == fake_llm.openai_base_url
    assert settings["legacy_migrated"] is True
    assert VALID_KEY not in settings_text  # the key went to the keychain only
    assert VALID_KEY in (home / "keyring.json").read_text(encoding="utf-8")

    # Once migrated, the variables are never read again.
    env["DEEPSEEK_API_BASE"] = "http://127.0.0.1:9/v1"
    assert cashcode("ask", "hi again", env=env, cwd=home / "ws").returncode == 0
    after = json.loads((home / "config" / "settings.json").read_text(encoding="utf-8"))
    assert after["providers"] == settings["providers"]

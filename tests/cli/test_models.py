"""`cashcode models` lists what the configured provider offers (named by model-not-found errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode


def test_models_lists_the_providers_models(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    result = cashcode("models", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["fake-model", "fake-tools", "fake-vision"]


def test_models_with_a_wrong_key_fails_with_one_line(env: dict[str, str], home: Path) -> None:
    env["OPENAI_API_KEY"] = "sk-wrong-000000000000"
    result = cashcode("models", env=env, cwd=home / "ws")
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "rejected the API key" in result.stderr
    assert "sk-wrong-000000000000" not in result.stderr


def test_an_unknown_model_points_at_the_models_command(env: dict[str, str], home: Path) -> None:
    result = cashcode("ask", "hi", "--model", "no-such-model", env=env, cwd=home / "ws")
    assert result.returncode == 1
    assert "no-such-model" in result.stderr and "cashcode models" in result.stderr

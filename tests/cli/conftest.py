"""CLI tests run `python -m app` in real subprocesses against the fake LLM server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

VALID_KEY = "sk-cli-valid-key-123456"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_llm() -> Iterator[Any]:
    from app.testing.fake_llm import FakeLLMServer

    with FakeLLMServer(valid_keys={VALID_KEY}) as server:
        yield server


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CASHCODE_", "DEEPSEEK_"))}
    env.update(
        CASHCODE_DATA_DIR=str(home / "data"),
        CASHCODE_CONFIG_DIR=str(home / "config"),
        CASHCODE_LOG_DIR=str(home / "logs"),
        CASHCODE_CACHE_DIR=str(home / "cache"),
        CASHCODE_MODEL="fake-model",
        PYTHON_KEYRING_BACKEND="app.testing.fake_keyring.FileKeyring",
        CASHCODE_TEST_KEYRING_FILE=str(home / "keyring.json"),
        NO_PROXY="*",
        PYTHONUNBUFFERED="1",
        CASHCODE_MCP_TEST_SERVERS="1",
    )
    env.pop("WORKSPACE_DIR", None)
    return env


@pytest.fixture
def env(home: Path, fake_llm: Any) -> dict[str, str]:
    e = base_env(home)
    e.update(OPENAI_BASE_URL=fake_llm.openai_base_url, OPENAI_API_KEY=VALID_KEY)
    return e


def cashcode(
    *args: str, env: dict[str, str], cwd: Path, stdin: str = "", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port

"""Shared end-to-end fixtures: a private Xvfb display, the scripted fake LLM server in its own
process, private data dirs with a file keyring, a seeded provider, and the real desktop app
attached over CDP. Browser tests (`test_browser_*.py`) may reuse the generic ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.desktop.harness import ROOT, DesktopProcess, app_dirs_env, desktop_command, launch
from tests.desktop.xvfb import xvfb
from tests.e2e.browser_helpers import browser_page, serve_env, served_ui  # noqa: F401 — fixtures


@pytest.fixture(scope="session")
def xvfb_display() -> Iterator[str]:
    """A private X display (e.g. ":7") for the whole session; pass it as DISPLAY."""
    with xvfb() as display:
        yield display.name


@dataclass
class FakeLLMProcess:
    """`python -m app.testing.fake_llm` in its own process, scripted over its control API."""

    proc: subprocess.Popen[str]
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    def script(self, *steps: dict[str, Any]) -> None:
        self._post("/_control/script", {"steps": list(steps)})

    def reset(self) -> None:
        self._post("/_control/reset", {})

    def requests(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(self.base_url + "/_control/requests", timeout=10) as resp:
            return list(json.load(resp)["requests"])

    def _post(self, path: str, body: dict[str, Any]) -> None:
        req = urllib.request.Request(
            self.base_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            resp.read()


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeLLMProcess]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.testing.fake_llm", "--port", "0", "--print-port"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()  # blocks until it listens (or exits)
    if not line.startswith("PORT="):
        proc.kill()
        pytest.fail(f"fake LLM server did not start: {line!r}")
    server = FakeLLMProcess(proc=proc, port=int(line.removeprefix("PORT=")))
    try:
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def fresh_llm(fake_llm: FakeLLMProcess) -> FakeLLMProcess:
    """The session's fake LLM with an empty script and request log."""
    fake_llm.reset()
    return fake_llm


@pytest.fixture
def app_env(tmp_path: Path) -> dict[str, str]:
    """Env vars for a private CashCode: its own data/config/log/cache dirs and file keyring."""
    return app_dirs_env(tmp_path / "cashcode")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def seeded_env(app_env: dict[str, str], fresh_llm: FakeLLMProcess, workspace: Path) -> dict[str, str]:
    """`app_env` with a Chat Completions provider on the fake LLM (key in the file keyring),
    chosen as the current model, and `workspace` as the workspace. Seeded through the API."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.desktop.seed",
            "--base-url",
            fresh_llm.openai_base_url,
            "--workspace",
            str(workspace),
        ],
        cwd=ROOT,
        env={**os.environ, **app_env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return app_env


@pytest.fixture
def desktop_app(xvfb_display: str, seeded_env: dict[str, str]) -> Iterator[DesktopProcess]:
    """`python -m app.desktop` on the seeded data, not yet attached (call `.attach(pw)`)."""
    app = launch(desktop_command(), seeded_env, xvfb_display)
    try:
        yield app
    finally:
        if app.proc.poll() is None:
            app.close_window()

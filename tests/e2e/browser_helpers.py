"""Helpers for the browser end-to-end tests: Debian's Chromium through Playwright, and
`cashcode serve` (as `python -m app.server`) on private data dirs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Error,
    Page,
    Playwright,
    WebSocket,
    expect,
    sync_playwright,
)

from tests.server.process import ServeProcess, free_port, serve_process

ROOT = Path(__file__).resolve().parents[2]
WEB_INDEX = ROOT / "app" / "web" / "index.html"
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Bounded waits (Playwright polls until then): generous because CI machines are small.
UI_TIMEOUT_MS = 20_000


def missing_prerequisite(reason: str) -> None:
    """Skip on a developer's partial set-up; under CI (`build.py test` installed and built
    everything) a missing piece is a failure, never a silent skip."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def require_built_ui() -> None:
    if not WEB_INDEX.is_file():
        missing_prerequisite("the UI is not built (app/web/index.html); run `python build.py test`")


def launch_chromium(pw: Playwright) -> Browser:
    if not Path(CHROMIUM).exists():
        missing_prerequisite(f"{CHROMIUM} is missing (apt-get install chromium)")
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class PageProblems:
    """Console errors and uncaught exceptions seen by a page."""

    messages: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.messages.append(f"console: {message.text}")

    def _on_page_error(self, error: Error) -> None:
        self.messages.append(f"pageerror: {error}")


@dataclass
class EventFrames:
    """The JSON batches the page received on `/api/events` (what the server pushed)."""

    batches: list[list[dict[str, object]]] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on("websocket", self._on_socket)

    def _on_socket(self, socket: WebSocket) -> None:
        if socket.url.endswith("/api/events"):
            socket.on("framereceived", self._on_frame)

    def _on_frame(self, payload: str | bytes) -> None:
        self.batches.append(json.loads(payload))

    def batches_with(self, event_type: str, turn_id: str | None = None) -> int:
        return sum(
            1
            for batch in self.batches
            if any(e["type"] == event_type and turn_id in (None, e.get("turn_id")) for e in batch)
        )


def open_view(page: Page, name: str) -> None:
    """Click a main-navigation entry and wait until its (lazily loaded) view is mounted, so the
    next click cannot land while the router is still fetching the view's chunk and get
    superseded (vue-router cancels a pending navigation when a newer one starts)."""
    page.get_by_test_id(f"nav-{name}").click()
    expect(page.get_by_test_id(f"{name}-view")).to_be_visible(timeout=UI_TIMEOUT_MS)


def wait_for(page: Page, predicate: Callable[[], bool], what: str, timeout_ms: int = UI_TIMEOUT_MS) -> None:
    """Bounded wait for state kept on the Python side (e.g. WebSocket frames Playwright reports):
    `page.wait_for_timeout` lets Playwright deliver the pending events while waiting."""
    waited = 0
    while not predicate():
        if waited >= timeout_ms:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(50)
        waited += 50


@pytest.fixture
def serve_env(app_env: dict[str, str], workspace: Path) -> dict[str, str]:
    return {**os.environ, **app_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}


@pytest.fixture
def served_ui(serve_env: dict[str, str]) -> Iterator[ServeProcess]:
    """`cashcode serve --no-open --port <free>` on private dirs; stopped with Ctrl+C after."""
    require_built_ui()
    with serve_process(["--no-open", "--port", str(free_port())], serve_env, cwd=ROOT) as served:
        yield served


@pytest.fixture
def browser_page() -> Iterator[tuple[Page, PageProblems, EventFrames]]:
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.set_default_timeout(UI_TIMEOUT_MS)
            problems = PageProblems()
            problems.watch(page)
            frames = EventFrames()
            frames.watch(page)
            yield page, problems, frames
        finally:
            browser.close()

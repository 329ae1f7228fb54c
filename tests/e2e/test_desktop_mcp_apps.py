"""MCP Apps in the REAL desktop window under Xvfb (issue 37 item 3): the window's asset server
only serves files, so an App's page reaches its sandboxed frame through the loader page
(frontend/public/mcp-app.html). Our probe App (tests/mcp/servers/app_server.py) renders, gets
the tool's result, is blocked from what it did not declare (an undeclared host, cookies,
storage, the top window, popups) while its declared loopback origin answers, and its call of an
App-only tool asks first and reaches its server. The npm `server-basic-vanillajs` App renders
there too and its button's tool call asks first and is answered by its server."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import DesktopProcess, invoke
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_mcp_apps import (  # noqa: F401 — fixtures
    APP_SERVER,
    app_servers,
    loopback_hosts,
)

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(240),
]

WAIT_MS = 60_000


@pytest.fixture
def window(desktop_app: DesktopProcess) -> Iterator[Page]:
    with sync_playwright() as pw:
        yield desktop_app.ready_page(pw, WAIT_MS)


def test_an_app_in_the_window_renders_is_walled_in_and_asks_before_calling_its_server(
    window: Page,
    fresh_llm: FakeLLMProcess,
    loopback_hosts: tuple[str, str, list[str]],  # noqa: F811 — the fixture imported above
    tmp_path: Path,
) -> None:
    declared, undeclared, hits = loopback_hosts
    report = tmp_path / "report.json"
    args = [str(APP_SERVER), "--declared", declared, "--undeclared", undeclared, "--report", str(report)]
    created = invoke(
        window,
        "mcp.servers.create",
        {"name": "probe", "transport": "stdio", "command": sys.executable, "args": args},
    )
    assert created["ok"], created
    assert invoke(window, "mcp.servers.confirm", {"name": "probe"})["ok"]
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "probe"}}]},
        {"tool_calls": [{"name": "mcp_probe_show_probe", "arguments": {"topic": "window"}}]},
        {"text": "The probe ran."},
    )
    window.get_by_test_id("composer-input").fill("Run the probe")
    window.get_by_test_id("send-button").click()
    dialog = window.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible(timeout=WAIT_MS)
    dialog.get_by_test_id("approval-once").click()
    answer = window.get_by_test_id("message-assistant").last
    expect(answer).to_contain_text("The probe ran.", timeout=WAIT_MS)

    frame = window.frame_locator('[data-testid="mcp-app-frame"]').first
    expect(frame.locator("#result")).to_contain_text('"topic":"window"', timeout=WAIT_MS)
    expect(dialog).to_contain_text("app_save", timeout=WAIT_MS)
    assert not report.exists()  # asked first: nothing reached the server yet
    dialog.get_by_test_id("approval-once").click()
    expect(frame.locator("#state")).to_have_text("saved", timeout=WAIT_MS)
    found = json.loads(report.read_text(encoding="utf-8"))
    walls = ("undeclared", "cookie", "storage", "api", "top", "popup")
    assert found == {"declared": "declared-ok", **dict.fromkeys(walls, "blocked")}, found
    assert hits == []


def test_the_basic_app_from_npm_renders_in_the_window_and_calls_its_server(
    window: Page,
    fresh_llm: FakeLLMProcess,
    app_servers: dict[str, str],  # noqa: F811 — the fixture imported above
) -> None:
    entry = {"name": "basic", "transport": "stdio", "command": app_servers["node"]}
    assert invoke(window, "mcp.servers.create", {**entry, "args": [app_servers["basic"], "--stdio"]})["ok"]
    assert invoke(window, "mcp.servers.confirm", {"name": "basic"})["ok"]
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "basic"}}]},
        {"tool_calls": [{"name": "mcp_basic_get-time", "arguments": {}}]},
        {"text": "The time is above."},
    )
    window.get_by_test_id("composer-input").fill("What time is it?")
    window.get_by_test_id("send-button").click()
    dialog = window.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible(timeout=WAIT_MS)
    dialog.get_by_test_id("approval-once").click()
    answer = window.get_by_test_id("message-assistant").last
    expect(answer).to_contain_text("The time is above.", timeout=WAIT_MS)

    frame = window.frame_locator('[data-testid="mcp-app-frame"]').first
    iso = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
    expect(frame.locator("#server-time")).to_have_text(iso, timeout=WAIT_MS)
    first = frame.locator("#server-time").inner_text()
    frame.locator("#get-time-btn").click(timeout=WAIT_MS)
    expect(dialog).to_contain_text("get-time", timeout=WAIT_MS)
    dialog.get_by_test_id("approval-once").click()
    activity = window.get_by_test_id("mcp-app-activity")
    expect(activity).to_contain_text("get-time", timeout=WAIT_MS)
    expect(frame.locator("#server-time")).not_to_have_text(first, timeout=WAIT_MS)

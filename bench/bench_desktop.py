"""Desktop benchmark: cold start, idle memory and server-to-screen token latency of the REAL
window (`python -m app.desktop`) against a hello-world pywebview window (bench/hello_window.py)
on the same backend and venv, all under a private Xvfb. Prints Markdown table rows.

Run from the repo root: .venv/bin/python bench/bench_desktop.py [--runs 5]

Method
- Visible: spawn → the window's `loaded` event (page load finished in the shown window),
  printed by the process itself as `CASHCODE_MARK loaded <epoch>`; same mark in both programs.
- Interactive (app only): spawn → the composer is editable, observed over CDP (Playwright
  attached to Qt WebEngine's DevTools server; in-page polling at animation-frame resolution).
- Idle memory: PSS summed over every process of the program's session (Python + Qt WebEngine
  renderer/GPU/utility processes) from /proc/<pid>/smaps_rollup, IDLE_S after `loaded`, in runs
  without the DevTools server so the probe itself costs nothing.
- Token latency: a tiny Chat Completions server in this process streams N tokens at a fixed
  rate and records time.time() right after each token's bytes are written (TCP_NODELAY). In
  the page, a MutationObserver watches the streaming assistant message; for every new token it
  stamps performance.timeOrigin + performance.now() when the DOM changed, in the next
  requestAnimationFrame, and in a task posted from that rAF callback, which runs after the
  frame's style, layout and paint ("painted", the budgeted column). Both clocks are the
  machine's wall clock. Latency = stamp - send.
- The latency floor, measured in the same run with the same server, stream and observer:
  bench/floor_window.py, a bare pywebview window on the same backend that reads the stream
  itself and appends it with run_js to one <pre> (no app, no Markdown, no Vue). The "shell
  only" rows (tests/desktop/latency_probe.py: the app's bus, pusher and bridge with a page
  without framework) show what the desktop shell adds on its own.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_desktop_presence import start_tray_host  # noqa: E402  (bench/ is the script's folder)
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from tests.desktop.harness import (  # noqa: E402
    DesktopProcess,
    app_dirs_env,
    desktop_command,
    invoke,
    launch,
    wait_for_mark,
)
from tests.desktop.procs import session_cpu_s, session_pss_kib, session_uss_kib  # noqa: E402
from tests.desktop.xvfb import xvfb  # noqa: E402

IDLE_S = 5.0
APP_SIZE = "1200x800"  # app/desktop/window_state.py's default: the floor draws the same pixels
PYWEBVIEW_SIZE = "800x600"  # pywebview's default window, the floor before 2026-12-01 (reference)
MODEL = "bench-model"
HELLO = [sys.executable, str(ROOT / "bench" / "hello_window.py")]


# ---- a Chat Completions server that timestamps every token it sends ------------------------


class TimedStream:
    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.rate = 50.0
        self.sent_at: list[float] = []
        # Requests from the floor window wait here until the bench releases one stream.
        self.floor_gate = threading.Semaphore(0)


def _make_handler(stream: TimedStream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            body = json.dumps(
                {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "bench"}]}
            )
            self._send_json(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path.startswith("/floor/"):
                stream.floor_gate.acquire()
                if self._peer_gone():  # a floor window of an earlier measurement, now closed
                    stream.floor_gate.release()
                    return
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            stream.sent_at = []
            start = time.monotonic()
            for i, token in enumerate(stream.tokens):
                delay = start + i / stream.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self._chunk({"content": token}, None)
                stream.sent_at.append(time.time())
            self._chunk({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")

        def _peer_gone(self) -> bool:
            self.connection.setblocking(False)
            try:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            except BlockingIOError:
                return False  # connected, nothing to read
            except OSError:
                return True
            finally:
                self.connection.setblocking(True)

        def _chunk(self, delta: dict[str, str], finish: str | None) -> None:
            data = {"id": "b", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")

        def _send_json(self, body: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

    return Handler


# ---- measurements --------------------------------------------------------------------------


def seed(env: dict[str, str], base_url: str, workspace: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url, "--model", MODEL,
         "--workspace", str(workspace)],
        cwd=ROOT, env={**os.environ, **env}, check=True, capture_output=True, timeout=60,
    )  # fmt: skip


def stop(app: DesktopProcess) -> None:
    # SIGTERM, not the close button: with a tray host, closing the window only hides it.
    if app.terminate() != 0:
        print(f"warning: exit code {app.proc.returncode}\n{app.tail()}", file=sys.stderr)
    app.leftovers()


def measure_hello(display: str) -> dict[str, float]:
    app = launch(HELLO, {}, display, cdp=False)
    visible = wait_for_mark(app, "loaded") - app.started_at
    time.sleep(IDLE_S)
    pss, uss = session_pss_kib(app.proc.pid) / 1024, session_uss_kib(app.proc.pid) / 1024
    stop(app)
    return {"visible": visible, "pss": pss, "uss": uss}


def measure_app_start(display: str, env: dict[str, str]) -> dict[str, float]:
    app = launch(desktop_command(), env, display)
    with sync_playwright() as pw:
        page = app.attach(pw, timeout_s=60)
        expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=60_000)
        observed = time.time() - app.started_at
        # The page's own mark (frontend/src/model/startupMarks.ts): the frame with the composer
        # painted. `observed` adds the debugger attach and Playwright's polling on top.
        painted_ms = page.evaluate("() => window.__cashcodeMarks?.composer ?? null")
        visible = wait_for_mark(app, "loaded") - app.started_at
        stop(app)
    interactive = painted_ms / 1000 - app.started_at if painted_ms else observed
    return {"visible": visible, "interactive": interactive, "observed": observed}


def measure_app_memory(display: str, env: dict[str, str]) -> dict[str, float]:
    app = launch(desktop_command(), env, display, cdp=False)
    wait_for_mark(app, "loaded")
    time.sleep(IDLE_S)
    pss, uss = session_pss_kib(app.proc.pid) / 1024, session_uss_kib(app.proc.pid) / 1024
    stop(app)
    return {"pss": pss, "uss": uss}


OBSERVER_JS = """([selector, nth]) => {
  // One observer for the app and the floor: it finds the newest token number at the end of the
  // target's text, stamps when the DOM changed, in the next animation frame, and in a task
  // posted from that frame's rAF callback, which runs after the frame's style, layout and
  // paint on the main thread ("painted").
  window.__lat = [];
  let max = -1, toFrame = [], toPaint = [], rafPending = false;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const stamp = performance.timeOrigin + performance.now();
    for (const rec of toPaint) rec[3] = stamp;
    toPaint = [];
  };
  const onFrame = () => {
    rafPending = false;
    const stamp = performance.timeOrigin + performance.now();
    for (const rec of toFrame) { rec[2] = stamp; toPaint.push(rec); }
    toFrame = [];
    channel.port2.postMessage(0);
  };
  const observer = new MutationObserver(() => {
    const stamp = performance.timeOrigin + performance.now();
    const els = document.querySelectorAll(selector);
    if (els.length <= nth) return;
    const found = els[nth].textContent.slice(-64).match(/t\\d{4}/g);
    const idx = found ? Number(found[found.length - 1].slice(1)) : -1;
    if (idx <= max) return;
    max = idx;
    const rec = [idx, stamp, 0, 0];
    window.__lat.push(rec);
    toFrame.push(rec);
    if (!rafPending) { rafPending = true; requestAnimationFrame(onFrame); }
  });
  observer.observe(document.body, {subtree: true, childList: true, characterData: true});
  // Close the channel too: an open MessagePort with a listener is never collected, so one per
  // turn piled up in the soak (+1 listener per turn and native memory over 1,000 turns).
  window.__stopObserver = () => { observer.disconnect(); channel.port1.close(); channel.port2.close(); };
}"""

COLUMNS = {"dom": 1, "frame": 2, "painted": 3}
# No diagram of an earlier answer still waiting to be drawn or being drawn.
SETTLED_JS = (
    "() => !document.querySelector('.diagram-block[data-state=queued], .diagram-block[data-state=loading]')"
)


def rich_token(word: str, phase: int) -> str | None:
    """Math and a diagram in the stream (issue 27): KaTeX and Mermaid run in the pipeline once
    their block is complete; the marker stays the last text while the block is open."""
    if phase == 60:
        return f"${word}^2$ "  # inline math
    if 90 <= phase < 94:
        opening = "\n\n$$\n" if phase == 90 else ""
        closing = "\n$$\n\n" if phase == 93 else " + "
        return f"{opening}\\frac{{{word}}}{{2}}{closing}"
    if 175 <= phase < 180:
        opening = "\n\n```mermaid\nflowchart LR\n" if phase == 175 else ""
        closing = "```\n\n" if phase == 179 else ""
        return f"{opening}  N{phase}[{word}] --> N{phase + 1}[{word}]\n{closing}"
    return None


def markdown_tokens(count: int) -> list[str]:
    """`count` tokens shaped like a model's Markdown answer: paragraphs of ~40 words, a short
    list, a fenced Python block, inline and display math and a Mermaid flowchart (issue 27)
    every 200 tokens. Every token carries one marker `tNNNN`
    (its index), which is how the observer knows what is on screen; both windows get the same."""
    tokens = []
    for i in range(count):
        word, phase = f"t{i:04d}", i % 200
        rich = rich_token(word, phase)
        if rich is not None:
            tokens.append(rich)
        elif 120 <= phase < 125:
            tokens.append(f"\n- **{word}**" if phase > 120 else f"\n\n- **{word}**")
        elif 150 <= phase < 165:
            opening = "\n\n```python\n" if phase == 150 else ""
            closing = "\n```\n\n" if phase == 164 else "\n"
            tokens.append(f"{opening}{word} = len(items)  # {phase}{closing}")
        elif phase == 125:
            tokens.append(f"\n\n{word} ")
        elif phase % 40 == 39:
            tokens.append(f"{word}.\n\n")
        else:
            tokens.append(f"{word} ")
    return tokens


def match_latencies(sent: list[float], records: list[list[float]], column: int) -> list[float]:
    """For token i sent at sent[i] (epoch s), the first record showing >= i+1 tokens (epoch ms)."""
    latencies, j = [], 0
    for i, sent_at in enumerate(sent):
        while records[j][0] < i:
            j += 1
        latencies.append(records[j][column] - sent_at * 1000)
    return latencies


def wait_sent(stream: TimedStream, count: int, timeout_s: float) -> None:
    """Wait, from this process, until the server wrote all `count` tokens: polling the page
    (expect(), wait_for_function) while the stream runs would add work to the measured page."""
    deadline = time.monotonic() + timeout_s
    while len(stream.sent_at) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server sent {len(stream.sent_at)} of {count} tokens")
        time.sleep(0.05)


def collect(page: Page, stream: TimedStream, count: int) -> dict[str, list[float]]:
    page.wait_for_function(
        f"() => window.__lat.length && window.__lat[window.__lat.length-1][0] >= {count - 1}"
        " && window.__lat.every(r => r[3] > 0)"
    )
    records = page.evaluate("() => { window.__stopObserver(); return window.__lat; }")
    return {name: match_latencies(stream.sent_at, records, col) for name, col in COLUMNS.items()}


def measure_latency(
    page: Page, stream: TimedStream, rate: float, count: int, sid: int
) -> dict[str, list[float]]:
    stream.rate = rate
    stream.tokens = markdown_tokens(count)
    # Start from a settled page, as a user who read the last answer does: its diagrams are drawn
    # once the stream has ended (decision 260), and a turn sent within that second would meet
    # the previous answer's drawing instead of measuring its own tokens.
    page.wait_for_function(SETTLED_JS, timeout=60_000)
    # Stay in the current chat: clicking "new chat" first races the chat switch against the send.
    first = page.get_by_test_id("message-assistant").count()
    page.evaluate(OBSERVER_JS, ["[data-testid=message-assistant]", first])
    page.get_by_test_id("composer-input").fill(f"stream {count} tokens at {rate:g}/s")
    cpu = session_cpu_s(sid)
    stream.sent_at = []
    page.get_by_test_id("send-button").click()
    wait_sent(stream, count, timeout_s=count / rate + 30)
    result = collect(page, stream, count)
    result["cpu"] = [session_cpu_s(sid) - cpu]
    # Only now: Playwright's expect() polls inside the page (aria snapshots, computed styles),
    # which during the stream would load the app's renderer and not the floor's.
    expect(page.get_by_test_id("message-assistant").nth(first)).to_have_attribute(
        "data-state", "done", timeout=30_000
    )
    return result


def measure_floor_latency(
    display: str,
    base_url: str,
    stream: TimedStream,
    runs: list[tuple[float, int]],
    size: str = APP_SIZE,
    env: dict[str, str] | None = None,
) -> list[dict[str, list[float]]]:
    """The floor: bench/floor_window.py, the same stream through run_js into a bare <pre>, in a
    window of `size` (the app's default window size unless told otherwise)."""
    argv = [sys.executable, str(ROOT / "bench" / "floor_window.py"), "--base-url", base_url, "--size", size]
    floor = launch(argv, env or {}, display)
    results = []
    with sync_playwright() as pw:
        page = floor.attach(pw, timeout_s=60)
        wait_for_mark(floor, "loaded", timeout_s=60)
        for rate, count in [(200.0, 50), *runs]:  # the first stream warms up like the app's
            stream.rate = rate
            stream.tokens = markdown_tokens(count)
            page.evaluate("() => { document.getElementById('out').textContent = ''; }")
            page.evaluate(OBSERVER_JS, ["#out", 0])
            cpu = session_cpu_s(floor.proc.pid)
            stream.sent_at = []
            stream.floor_gate.release()
            wait_sent(stream, count, timeout_s=count / rate + 30)
            results.append(collect(page, stream, count))
            results[-1]["cpu"] = [session_cpu_s(floor.proc.pid) - cpu]
        stop(floor)
    return results[1:]


def measure_shell_latency(
    display: str, env: dict[str, str], runs: list[tuple[float, int]]
) -> list[dict[str, list[float]]]:
    """The shell alone: stand-in app → bus → pusher → run_js → framework-free page."""
    app = launch([sys.executable, "-m", "tests.desktop.latency_probe"], env, display)
    results = []
    with sync_playwright() as pw:
        page = app.attach(pw, timeout_s=60)
        page.wait_for_selector("#out", state="attached")
        invoke(page, "bench.sent")  # the bridge is up
        for rate, count in runs:
            page.evaluate("() => { window.__recv = []; document.getElementById('out').textContent = ''; }")
            invoke(page, "bench.stream", {"rate": rate, "count": count})
            page.wait_for_function(
                f"() => window.__recv.length && window.__recv[window.__recv.length-1][0] >= {count}",
                timeout=count / rate * 1000 + 30_000,
            )
            page.wait_for_timeout(100)
            records = [[r[0] - 1, r[1], r[2]] for r in page.evaluate("() => window.__recv")]
            sent = invoke(page, "bench.sent")["data"]["sent"]
            results.append(
                {"dom": match_latencies(sent, records, 1), "frame": match_latencies(sent, records, 2)}
            )
        stop(app)
    return results


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


# ---- main ----------------------------------------------------------------------------------


def startup_rows(display: str, env: dict[str, str], runs: int) -> list[str]:
    measure_app_start(display, env)  # warm-up: first-run work and the OS file cache
    hello = [measure_hello(display) for _ in range(runs)]
    starts = [measure_app_start(display, env) for _ in range(runs)]
    hello_vis = statistics.median(h["visible"] for h in hello)
    app_vis = statistics.median(s["visible"] for s in starts)
    app_int = statistics.median(s["interactive"] for s in starts)
    app_seen = statistics.median(s["observed"] for s in starts)
    return [
        f"| cold start → window visible (median of {runs}) | {hello_vis:.2f} s | {app_vis:.2f} s "
        f"| {app_vis / hello_vis:.2f}x | ≤ 1.5x floor |",
        f"| cold start → interactive: composer painted, page clock (median of {runs}) | — "
        f"| {app_int:.2f} s | — | ≤ 1.5 s |",
        f"| (the same seen over CDP: + debugger attach and polling) | — | {app_seen:.2f} s | — | — |",
    ]


def memory_rows(display: str, env: dict[str, str], runs: int) -> list[str]:
    hello = [measure_hello(display) for _ in range(runs)]
    app = [measure_app_memory(display, env) for _ in range(runs)]
    rows = []
    for kind, budget in (("pss", "≤ 1.25x floor"), ("uss", "(PSS is the budget; USS ignores other apps)")):
        floor, mem = statistics.median(h[kind] for h in hello), statistics.median(a[kind] for a in app)
        rows.append(
            f"| idle memory, {kind.upper()} of all processes (median of {runs}) | {floor:.0f} MB "
            f"| {mem:.0f} MB | {mem / floor:.2f}x | {budget} |"
        )
    return rows


RATES = [(50.0, 250), (500.0, 1500)]


def latency_rows(display: str, env: dict[str, str], stream: TimedStream, base_url: str) -> list[str]:
    floor = measure_floor_latency(display, base_url.removesuffix("/v1"), stream, RATES)
    small = measure_floor_latency(display, base_url.removesuffix("/v1"), stream, RATES, PYWEBVIEW_SIZE)
    # The app draws with Qt Quick's software backend when there is no GPU (render_backend.py);
    # a bare pywebview program does not. The same floor with that choice, for reference.
    soft = measure_floor_latency(
        display, base_url.removesuffix("/v1"), stream, RATES, env={"QT_QUICK_BACKEND": "software"}
    )
    app = launch(desktop_command(), env, display)
    with sync_playwright() as pw:
        page = app.attach(pw, timeout_s=60)
        expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=60_000)
        measure_latency(page, stream, 200, 50, app.proc.pid)  # warm-up turn
        full = [measure_latency(page, stream, rate, count, app.proc.pid) for rate, count in RATES]
        first_diagram = page.evaluate(
            "() => performance.getEntriesByName('cashcode:first-diagram').map(e => e.duration)[0] ?? -1"
        )
        stop(app)
    shell = measure_shell_latency(display, env, RATES)
    rows = []
    for (rate, count), fl, lat, sh, sm, so in zip(RATES, floor, full, shell, small, soft, strict=True):
        floor_p95, app_p95 = pct(fl["painted"], 95), pct(lat["painted"], 95)
        floor_cell = f"{pct(fl['painted'], 50):.1f} / {floor_p95:.1f} ms"
        app_cell = f"{pct(lat['painted'], 50):.1f} / {app_p95:.1f} ms"
        rows.append(
            f"| token latency server→painted frame, {rate:g} tok/s, p50 / p95 (n={len(lat['painted'])}) "
            f"| {floor_cell} | {app_cell} | {app_p95 / floor_p95:.2f}x | p95 ≤ 1.25x floor |"
        )
        rows.append(
            f"| same, in DOM; rAF of the next frame (p95) | {pct(fl['dom'], 95):.1f}; "
            f"{pct(fl['frame'], 95):.1f} ms | {pct(lat['dom'], 95):.1f}; {pct(lat['frame'], 95):.1f} ms "
            "| — | for reference |"
        )
        floor_cpu, app_cpu = fl["cpu"][0] / count * 1000, lat["cpu"][0] / count * 1000
        rows.append(
            f"| CPU of all processes per 1,000 tokens, {rate:g} tok/s | {floor_cpu:.2f} s | {app_cpu:.2f} s "
            f"| {app_cpu / floor_cpu:.2f}x | for reference (load-robust) |"
        )
        rows.append(
            f"| shell only (bus→pusher→run_js→bare page), {rate:g} tok/s, in DOM; rAF (p95) | — "
            f"| {pct(sh['dom'], 95):.1f}; {pct(sh['frame'], 95):.1f} ms | — | for reference |"
        )
        rows.append(
            f"| floor in pywebview's default {PYWEBVIEW_SIZE} window, {rate:g} tok/s, painted p50 / p95 "
            f"| {pct(sm['painted'], 50):.1f} / {pct(sm['painted'], 95):.1f} ms | — "
            f"| app / this: {app_p95 / pct(sm['painted'], 95):.2f}x | for reference |"
        )
        soft_cpu = so["cpu"][0] / count * 1000
        rows.append(
            f"| floor with the app's Qt Quick backend (software), {rate:g} tok/s, painted p50 / p95; "
            f"CPU per 1,000 tokens | {pct(so['painted'], 50):.1f} / {pct(so['painted'], 95):.1f} ms; "
            f"{soft_cpu:.2f} s | — | app / this: {app_p95 / pct(so['painted'], 95):.2f}x; "
            f"CPU {app_cpu / soft_cpu:.2f}x | for reference |"
        )
    rows.append(
        f"| first Mermaid diagram in the window: library load + render | — | {first_diagram:.0f} ms "
        "| — | for reference (lazy: nothing before the first diagram) |"
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mem-runs", type=int, default=3)
    parser.add_argument("--only", choices=("startup", "memory", "latency"), action="append")
    args = parser.parse_args()
    parts = args.only or ["startup", "memory", "latency"]

    stream = TimedStream()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(stream))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    rows = ["| metric | hello-world floor | CashCode desktop | ratio | budget |", "|---|---|---|---|---|"]
    with xvfb() as display, tempfile.TemporaryDirectory() as tmp:
        env = app_dirs_env(Path(tmp) / "cashcode")
        (Path(tmp) / "ws").mkdir()
        seed(env, base_url, Path(tmp) / "ws")
        # The app as users run it: a tray host on the display, so the tray icon exists too
        # (the hidden Quick Ask window, MCP, memory and Skills are always built).
        tray = start_tray_host(display.name) if {"startup", "memory"} & set(parts) else None
        if "startup" in parts:
            rows += startup_rows(display.name, env, args.runs)
        if "memory" in parts:
            rows += memory_rows(display.name, env, args.mem_runs)
        if tray is not None:
            tray.terminate()
            tray.wait(10)
        if "latency" in parts:
            rows += latency_rows(display.name, env, stream, base_url)
    server.shutdown()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

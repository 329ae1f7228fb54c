"""Soak in the real desktop window: many turns through the UI against a scripted Chat
Completions server, to show that memory and token latency stay flat over long use.

Run from the repo root: .venv/bin/python bench/bench_soak_window.py [--turns 1000]

Method
- The real app (`python -m app.desktop`) under a private Xvfb, driven over CDP like a user:
  type into the composer, click send, answer every tool approval in the approval dialog,
  start a new chat every `--chat-turns` turns (a day of use is many chats, not one endless one;
  with 10, the two memory snapshots both see a finished 10-turn chat).
- Every answer is long Markdown streamed at `--rate` tokens/s (paragraphs, a bold list, a
  fenced Python block: bench_desktop.markdown_tokens). Every `--tool-every`-th turn first asks
  for `write_file` (needs approval), then streams the answer after the tool result.
- Token latency per turn: server write → painted frame, with bench_desktop's observer
  (the same method as the latency rows). Compared: p95 over the first 50 turns vs the last 50.
- Memory: PSS of every process of the app's session (Python + Qt WebEngine processes),
  IDLE_S after turn 10 finished vs after the last turn. Budget: end ≤ +10 %.
Requests that are not soak turns (e.g. memory consolidation) get a short untimed answer.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_desktop as bd
from playwright.sync_api import Page, expect, sync_playwright

from tests.desktop.harness import app_dirs_env, desktop_command, launch
from tests.desktop.procs import pss_kib, session_members, session_pss_kib
from tests.desktop.xvfb import xvfb

IDLE_S = 3.0
TURN_PREFIX = "soak turn "


class SoakStream:
    def __init__(self, rate: float, tokens: int) -> None:
        self.rate = rate
        self.tokens = bd.markdown_tokens(tokens)
        self.sent_at: list[float] = []
        self.calls = 0


def _handler(stream: SoakStream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            models = [{"id": bd.MODEL, "object": "model", "owned_by": "bench"}]
            body = json.dumps({"object": "list", "data": models})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            last = request["messages"][-1]
            text = last.get("content") if isinstance(last.get("content"), str) else ""
            if last["role"] == "user" and text.startswith(TURN_PREFIX) and "[tool]" in text:
                stream.calls += 1
                args = json.dumps({"path": f"soak-{stream.calls}.txt", "content": "soak\n" * 20})
                call = {"index": 0, "id": f"call_{stream.calls}", "type": "function",
                        "function": {"name": "write_file", "arguments": args}}  # fmt: skip
                self._chunk({"tool_calls": [call]}, None)
                self._chunk({}, "tool_calls")
            elif last["role"] == "tool" or text.startswith(TURN_PREFIX):
                self._timed_answer()
            else:
                self._chunk({"content": "Summary of the earlier turns."}, None)
                self._chunk({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")

        def _timed_answer(self) -> None:
            sent: list[float] = []
            start = time.monotonic()
            for i, token in enumerate(stream.tokens):
                delay = start + i / stream.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self._chunk({"content": token}, None)
                sent.append(time.time())
            stream.sent_at = sent
            self._chunk({}, "stop")

        def _chunk(self, delta: dict[str, Any], finish: str | None) -> None:
            data = {"id": "s", "object": "chat.completion.chunk", "created": 0, "model": bd.MODEL,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")

    return Handler


def one_turn(page: Page, stream: SoakStream, turn: int, tool: bool) -> float:
    """Send one turn through the UI (answering the approval if asked); the turn's painted p95."""
    first = page.get_by_test_id("message-assistant").count()
    page.evaluate(bd.OBSERVER_JS, ["[data-testid=message-assistant]", first])
    page.get_by_test_id("composer-input").fill(f"{TURN_PREFIX}{turn}{' [tool]' if tool else ''}")
    page.get_by_test_id("send-button").click()
    if tool:
        dialog = page.get_by_test_id("approval-dialog")
        expect(dialog).to_be_visible(timeout=60_000)
        page.get_by_test_id("approval-once").click()
        expect(dialog).to_be_hidden(timeout=60_000)
    expect(page.get_by_test_id("message-assistant").nth(first)).to_have_attribute(
        "data-state", "done", timeout=120_000
    )
    count = len(stream.tokens)
    page.wait_for_function(
        f"() => window.__lat.length && window.__lat[window.__lat.length-1][0] >= {count - 1}"
        " && window.__lat.every(r => r[3] > 0)",
        timeout=60_000,
    )
    records = page.evaluate("() => { window.__stopObserver(); return window.__lat; }")
    return bd.pct(bd.match_latencies(stream.sent_at, records, bd.COLUMNS["painted"]), 95)


def idle_pss_mb(pid: int) -> float:
    time.sleep(IDLE_S)  # let the turn's after-work (history reload, summaries) settle
    return session_pss_kib(pid) / 1024


def snapshot(page: Page, pid: int) -> dict[str, float]:
    """Leak indicators that do not depend on machine load: the page's live JS heap, DOM nodes
    and event listeners after a forced GC, and PSS per process kind (Python vs Qt WebEngine)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    cdp.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    cdp.detach()
    by_kind: dict[str, float] = {}
    for member in session_members(pid):
        try:
            comm = Path(f"/proc/{member}/comm").read_text().strip()
            kind = "python" if member == pid else comm
            by_kind[kind] = by_kind.get(kind, 0.0) + pss_kib(member) / 1024
        except OSError:
            continue
    return {
        "js_heap_mb": metrics.get("JSHeapUsedSize", 0) / 2**20,
        "dom_nodes": metrics.get("Nodes", 0),
        "listeners": metrics.get("JSEventListeners", 0),
        **{f"pss_{k}_mb": v for k, v in by_kind.items()},
    }


def run(args: argparse.Namespace) -> list[str]:
    stream = SoakStream(args.rate, args.tokens)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stream))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    p95s: list[float] = []
    started = time.monotonic()
    with xvfb() as display, tempfile.TemporaryDirectory() as tmp:
        env = app_dirs_env(Path(tmp) / "cashcode")
        (Path(tmp) / "ws").mkdir()
        bd.seed(env, base_url, Path(tmp) / "ws")
        app = launch(desktop_command(), env, display.name)
        with sync_playwright() as pw:
            page = app.attach(pw, timeout_s=60)
            expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=60_000)
            pss_warm, warm = 0.0, {}
            for turn in range(1, args.turns + 1):
                if turn > 1 and (turn - 1) % args.chat_turns == 0:
                    page.get_by_test_id("new-chat").click()
                    expect(page.get_by_test_id("message-assistant")).to_have_count(0, timeout=30_000)
                p95s.append(one_turn(page, stream, turn, tool=turn % args.tool_every == 0))
                if turn == 10:
                    pss_warm = idle_pss_mb(app.proc.pid)
                    warm = snapshot(page, app.proc.pid)
                if turn % 50 == 0:
                    print(f"turn {turn}: {time.monotonic() - started:.0f} s, turn p95 {p95s[-1]:.1f} ms",
                          file=sys.stderr, flush=True)  # fmt: skip
                if turn % 250 == 0 and turn < args.turns:  # progress a long run can be judged by
                    print(f"turn {turn}: idle PSS {idle_pss_mb(app.proc.pid):.0f} MB, "
                          f"{snapshot(page, app.proc.pid)}", file=sys.stderr, flush=True)  # fmt: skip
            pss_end = idle_pss_mb(app.proc.pid)
            end = snapshot(page, app.proc.pid)
            bd.stop(app)
    server.shutdown()
    minutes = (time.monotonic() - started) / 60
    window = min(50, len(p95s) // 2)
    first, last = statistics.median(p95s[:window]), statistics.median(p95s[-window:])
    detail = [
        f"| {name} (for reference) | {warm.get(name, 0):.1f} | {value:.1f} | — | — |"
        for name, value in end.items()
    ]
    return [
        "| metric | start | end | change | budget |",
        "|---|---|---|---|---|",
        f"| idle PSS of all processes, after turn 10 → after turn {args.turns} ({minutes:.1f} min) "
        f"| {pss_warm:.0f} MB | {pss_end:.0f} MB | {100 * (pss_end / pss_warm - 1):+.1f} % | ≤ +10 % |",
        f"| token latency server→painted frame, median of per-turn p95, first {window} vs last "
        f"{window} turns ({args.rate:g} tok/s, {args.tokens} tokens a turn) | {first:.1f} ms | {last:.1f} ms "
        f"| {last / first:.2f}x | unchanged |",
        *detail,
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=500.0, help="tokens per second of every answer")
    parser.add_argument("--tokens", type=int, default=220, help="tokens per answer")
    parser.add_argument("--tool-every", type=int, default=5, help="every N-th turn uses a tool")
    parser.add_argument("--chat-turns", type=int, default=10, help="turns per chat")
    args = parser.parse_args()
    if args.turns < 20:
        parser.error("--turns must be at least 20 (memory is compared after turn 10)")
    print("\n".join(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

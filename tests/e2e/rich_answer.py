"""The rich answer of issue 27 (math, diagrams, artifacts), shared by the browser and window
tests and the latency bench, and a loopback server that records every request it gets (the
artifact must never reach it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MERMAID_FLOWCHART = "flowchart LR\n  A[Ask] --> B{Clear?}\n  B -->|yes| C[Answer]\n  B -->|no| D[Ask back]"
BROKEN_MERMAID = "flowchart LR\n  A --> B -->> ((( oops"
BAD_FORMULA = "\\frac{1}{"
# What the artifact finds when every way out is closed.
ARTIFACT_REPORT = "no-parent,no-cookie,no-storage,no-bridge"


def artifact_html(leak_url: str) -> str:
    """Writes a marker into its own page first, then tries every way out it should not have."""
    return (
        '<!doctype html><html><body><p id="marker">waiting</p><p id="report"></p><script>\n'
        "document.getElementById('marker').textContent = 'ARTIFACT-RAN';\n"
        "const report = [];\n"
        f"try {{ fetch('{leak_url}?via=fetch').catch(() => undefined); }} catch (e) {{}}\n"
        f"try {{ new Image().src = '{leak_url}?via=img'; }} catch (e) {{}}\n"
        "try { parent.document.body.dataset.pwned = 'artifact'; report.push('parent'); }"
        " catch (e) { report.push('no-parent'); }\n"
        "try { report.push('cookie:' + document.cookie); } catch (e) { report.push('no-cookie'); }\n"
        "try { localStorage.setItem('pwned', '1'); report.push('storage'); }"
        " catch (e) { report.push('no-storage'); }\n"
        # No CashCode bridge (pywebview's API, Qt's web channel) inside the frame, in the window.
        "report.push(typeof qt === 'undefined' && !window.pywebview ? 'no-bridge' : 'bridge');\n"
        "document.getElementById('report').textContent = report.join(',');\n"
        "</script></body></html>"
    )


def svg_artifact(leak_url: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" '
        f"onload=\"try{{parent.document.body.dataset.pwned='svg'}}catch(e){{}};fetch('{leak_url}?via=svg')"
        '.catch(()=>0)"><rect width="120" height="60" fill="#4a90d9"/></svg>'
    )


def rich_answer(leak_url: str = "http://127.0.0.1:9/leak") -> str:
    return "\n".join(
        [
            "Inline math: $a^2 + b^2 = c^2$ and \\(e^{i\\pi} + 1 = 0\\).",
            "",
            "$$",
            "\\int_0^1 x^2\\,dx = \\frac{1}{3}",
            "$$",
            "",
            f"A malformed one: ${BAD_FORMULA}$ stays readable.",
            "",
            "```mermaid",
            MERMAID_FLOWCHART,
            "```",
            "",
            "```mermaid",
            BROKEN_MERMAID,
            "```",
            "",
            "```html",
            artifact_html(leak_url),
            "```",
            "",
            "```svg",
            svg_artifact(leak_url),
            "```",
            "",
            "That is all.",
        ]
    )


@dataclass
class RequestLog:
    paths: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/leak"


@contextmanager
def recording_server() -> Iterator[RequestLog]:
    """A loopback HTTP server that records the path of every request made to it."""
    log = RequestLog()

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            log.paths.append(self.path)
            self.send_response(200)
            self.send_header("access-control-allow-origin", "*")
            self.end_headers()

        do_GET = _record
        do_POST = _record

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    log.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield log
    finally:
        server.shutdown()
        server.server_close()

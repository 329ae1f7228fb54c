"""A local search server for tests: DuckDuckGo's HTML endpoint (a recorded-style page),
SearXNG JSON, and Brave/Tavily-style keyed JSON APIs. Loopback only; records requests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

PAGE = (Path(__file__).parent / "ddg_results.html").read_bytes()
KEY = "brave-test-key-1234"
ITEMS = [
    {"title": f"Result {i}", "url": f"https://example.com/{i}", "content": f"Snippet {i}"} for i in range(12)
]


@dataclass
class FakeSearch:
    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def _handler(state: FakeSearch) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _record(self, body: bytes) -> dict[str, Any]:
            parts = urlsplit(self.path)
            entry = {
                "method": self.command,
                "path": parts.path,
                "query": parse_qs(parts.query),
                "headers": dict(self.headers),
                "body": body.decode("utf-8", "replace"),
            }
            state.requests.append(entry)
            return entry

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            entry = self._record(body)
            if entry["path"] == "/html/":
                self._send(200, PAGE, "text/html; charset=utf-8")
            elif entry["path"] == "/tavily/search":
                if self.headers.get("Authorization") != f"Bearer {KEY}":
                    self._send(401, b'{"error": "unauthorized"}', "application/json")
                    return
                n = json.loads(body)["max_results"]
                self._send(200, json.dumps({"results": ITEMS[:n]}).encode(), "application/json")
            else:
                self._send(404, b"not found", "text/plain")

        def do_GET(self) -> None:
            entry = self._record(b"")
            query = urlsplit(self.path).query
            if entry["path"] in ("/moved/search", "/away/search"):  # a redirecting instance
                host = "127.0.0.1" if entry["path"] == "/moved/search" else "localhost"
                self.send_response(302)
                self.send_header("Location", f"http://{host}:{state.port}/searx/search?{query}")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif entry["path"] == "/searx/search":
                self._send(200, json.dumps({"results": ITEMS}).encode(), "application/json")
            elif entry["path"] == "/brave/search":
                if self.headers.get("X-Subscription-Token") != KEY:
                    self._send(401, b'{"error": "unauthorized"}', "application/json")
                    return
                items = [{"title": i["title"], "url": i["url"], "description": i["content"]} for i in ITEMS]
                self._send(200, json.dumps({"web": {"results": items}}).encode(), "application/json")
            else:
                self._send(404, b"not found", "text/plain")

    return Handler


@contextmanager
def fake_search() -> Iterator[FakeSearch]:
    state = FakeSearch()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)

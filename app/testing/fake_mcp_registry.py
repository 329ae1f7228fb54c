"""A local MCP Registry for tests, answering in the registry's published format (API 2025-12-01):

    GET /v0.1/servers?search=&cursor=&limit=&version=latest
        -> {"servers": [{"server": {...}, "_meta": {...}}], "metadata": {"nextCursor", "count"}}
    GET /v0.1/servers/{name}/versions/{version|latest} -> {"server": {...}, "_meta": {...}}

With `flat = True` it answers in the older flat shape instead (2025-09 to 2025-10: each item is
the server.json itself with `_meta` beside its fields, and the cursor is `next_cursor`).

`search` is a case-insensitive substring of the name (as the published API does); the cursor
is opaque (here the name of the last entry of the previous page). Entries are given as raw
JSON-like dicts, so a test can serve malformed ones.

    with FakeMcpRegistry([server_json(...), ...]) as registry:
        ... set the app's registry URL to registry.base_url ...
        assert registry.requests  # the paths asked for

`files` are served at `/files/<name>` (an mcpb package's bundle, on the registry's own host).

Run as a process: `python -m app.testing.fake_mcp_registry --port 0 --print-port --entries FILE.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

OFFICIAL = "io.modelcontextprotocol.registry/official"
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def server_json(
    name: str,
    description: str,
    version: str = "1.0.0",
    *,
    title: str = "",
    packages: Sequence[dict[str, Any]] = (),
    remotes: Sequence[dict[str, Any]] = (),
    status: str = "active",
) -> dict[str, Any]:
    """One list item: a server.json wrapped with the registry's own metadata."""
    server: dict[str, Any] = {"$schema": SCHEMA, "name": name, "description": description, "version": version}
    if title:
        server["title"] = title
    if packages:
        server["packages"] = list(packages)
    if remotes:
        server["remotes"] = list(remotes)
    meta = {
        "status": status,
        "publishedAt": "2026-11-01T10:00:00Z",
        "updatedAt": "2026-11-02T10:00:00Z",
        "isLatest": True,
    }
    return {"server": server, "_meta": {OFFICIAL: meta}}


def pypi_package(identifier: str, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "registryType": "pypi",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **extra,
    }


def npm_package(identifier: str, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "registryType": "npm",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **extra,
    }


class FakeMcpRegistry:
    def __init__(self, entries: Sequence[Any] = (), host: str = "127.0.0.1", port: int = 0) -> None:
        self.entries: list[Any] = list(entries)
        self.requests: list[str] = []  # path?query of every request
        self.status = 200  # set to 500 etc. to answer every list request with that status
        self.raw_body: bytes | None = None  # answer list requests with exactly these bytes
        self.redirect: str | None = None  # answer list requests with a 302 to this URL
        # name -> successive answers of that server's version request (the last one repeats):
        # a "swap" registry answers the plan with one package and the install with another
        self.swaps: dict[str, list[Any]] = {}
        # answer list requests one byte every `dribble_s` seconds (a hanging registry)
        self.dribble_s: float | None = None
        self.flat = False  # answer in the older flat shape (see flat_entry)
        self.files: dict[str, bytes] = {}  # served at /files/<name> (e.g. an mcpb package's bundle)
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeMcpRegistry:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="fake-mcp-registry", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeMcpRegistry:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- answers -------------------------------------------------------------------------------

    def list_page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        search = (query.get("search") or [""])[0].lower()
        cursor = (query.get("cursor") or [""])[0]
        limit = max(1, min(100, int((query.get("limit") or ["30"])[0])))
        found = [e for e in self.entries if search in _name(e).lower()]
        if cursor:
            names = [_name(e) for e in found]
            found = found[names.index(cursor) + 1 :] if cursor in names else []
        page = found[:limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if len(found) > limit:
            metadata["next_cursor" if self.flat else "nextCursor"] = _name(page[-1])
        if self.flat:
            page = [flat_entry(e) for e in page]
        return {"servers": page, "metadata": metadata}

    def one(self, name: str, version: str) -> Any | None:
        answers = self.swaps.get(name)
        if answers:
            return answers.pop(0) if len(answers) > 1 else answers[0]
        for entry in self.entries:
            if _name(entry) == name:
                server = entry.get("server", {}) if isinstance(entry, dict) else {}
                if version in ("latest", server.get("version")):
                    return flat_entry(entry) if self.flat else entry
        return None

    def file_answer(self, path: str) -> tuple[int, bytes]:
        name = unquote(path[len("/files/") :]) if path.startswith("/files/") else None
        data = self.files.get(name) if name is not None else None
        return (404, b'{"error": "Not found"}') if data is None else (200, data)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:
                registry.requests.append(self.path)
                parts = urlsplit(self.path)
                path = parts.path
                for prefix in ("/v0.1", "/v0"):
                    if path.startswith(prefix + "/"):
                        path = path[len(prefix) :]
                        break
                else:  # not the API: one of `files`, or 404
                    return self._send_bytes(*registry.file_answer(path))
                if path == "/servers":
                    if registry.redirect is not None:
                        self.send_response(302)
                        self.send_header("Location", registry.redirect)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return None
                    if registry.dribble_s is not None:
                        return self._dribble(registry.dribble_s)
                    if registry.raw_body is not None:
                        return self._send_bytes(registry.status, registry.raw_body)
                    if registry.status != 200:
                        return self._send(registry.status, {"error": "broken on purpose"})
                    return self._send(200, registry.list_page(parse_qs(parts.query)))
                bits = path.split("/")
                if len(bits) == 5 and bits[1] == "servers" and bits[3] == "versions":
                    entry = registry.one(unquote(bits[2]), unquote(bits[4]))
                    if entry is None:
                        return self._send(404, {"error": "Server not found"})
                    return self._send(200, entry)
                return self._send(404, {"error": "Not found"})

            def _dribble(self, every_s: float) -> None:
                body = json.dumps(registry.list_page({})).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for n in range(len(body)):
                    try:
                        self.wfile.write(body[n : n + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up
                    if registry._stopping.wait(every_s):
                        return

            def _send(self, status: int, body: Any) -> None:
                self._send_bytes(status, json.dumps(body).encode())

            def _send_bytes(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def flat_entry(entry: Any) -> Any:
    """A wrapped item in the older flat shape: the server's fields and `_meta` side by side."""
    if not isinstance(entry, dict) or not isinstance(entry.get("server"), dict):
        return entry
    return {**entry["server"], "_meta": entry.get("_meta", {})}


def _name(entry: Any) -> str:
    server = entry.get("server", entry) if isinstance(entry, dict) else None  # wrapped or flat
    name = server.get("name") if isinstance(server, dict) else None
    return name if isinstance(name, str) else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local MCP Registry for tests.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--print-port", action="store_true")
    parser.add_argument("--entries", type=Path, help="a JSON file: a list of list items")
    args = parser.parse_args(argv)
    entries = json.loads(args.entries.read_text(encoding="utf-8")) if args.entries else []
    registry = FakeMcpRegistry(entries, port=args.port)
    if args.print_port:
        print(registry.port, flush=True)
    try:
        registry._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

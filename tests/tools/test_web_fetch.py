"""web_fetch: SSRF guard (addresses, redirects, pinning), size caps and text extraction, offline."""

from __future__ import annotations

import ipaddress
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext, ToolError, ToolResult
from app.support.paging import page_chars
from app.tools.ssrf import IPAddress, address_problem
from app.tools.web import WebFetchTool

PAGE = """<!doctype html><html><head><title>Test  Page</title><style>body{color:red}</style>
<script>alert('x')</script></head><body><h1>Hello</h1><p>First&nbsp;para &amp; more.</p>
<noscript>enable js</noscript><ul><li>one</li><li>two</li></ul></body></html>"""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        assert isinstance(self.server, ThreadingHTTPServer)
        port = self.server.server_port
        routes = {
            "/html": lambda: self._send(200, PAGE.encode(), "text/html; charset=utf-8"),
            "/json": lambda: self._send(200, b'{"a": [1, 2]}', "application/json"),
            "/big": lambda: self._send(200, b"y" * (3 * 1024 * 1024), "text/plain"),
            "/binary": lambda: self._send(200, b"\x00\x01", "application/octet-stream"),
            "/host": lambda: self._send(200, self.headers["Host"].encode(), "text/plain"),
            "/to-html": lambda: self._send(302, b"", "text/plain", {"Location": "/html"}),
            "/to-private": lambda: self._send(
                302, b"", "text/plain", {"Location": f"http://127.0.0.2:{port}/html"}
            ),
            "/to-metadata": lambda: self._send(
                301, b"", "text/plain", {"Location": "http://169.254.169.254/latest/meta-data"}
            ),
            "/loop": lambda: self._send(302, b"", "text/plain", {"Location": "/loop"}),
        }
        routes.get(self.path, lambda: self._send(404, b"nope", "text/plain"))()


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def private_ok(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace, allow_private_network=True)


def only_127_0_0_1(ip: IPAddress, allow_private: bool) -> str | None:
    """Test policy: treat 127.0.0.1 (our local server) as a public host; guard everything else."""
    return None if ip == ipaddress.ip_address("127.0.0.1") else address_problem(ip, allow_private)


async def fetch(tool: WebFetchTool, url: str, ctx: ToolContext) -> ToolResult:
    return await tool.execute(await tool.prepare({"url": url}, ctx), ctx)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "240.0.0.1",
        "::1", "::", "fe80::1", "fc00::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
        "2002:7f00:1::1", "64:ff9b::a00:1",
    ],
)  # fmt: skip
def test_the_guard_refuses_non_public_addresses(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert address_problem(ip, False) is not None
    assert address_problem(ip, True) is None


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_the_guard_allows_public_addresses(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address), False) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/x",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "https://[::ffff:a00:1]/",
        "http://0x7f000001/",
    ],
)
async def test_web_fetch_refuses_local_and_private_targets(url: str, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="Refused|Could not resolve"):
        await WebFetchTool().prepare({"url": url}, ctx)


async def test_web_fetch_refuses_a_name_resolving_to_any_private_address(ctx: ToolContext) -> None:
    async def resolver(host: str, port: int) -> list[IPAddress]:
        return [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("10.0.0.7")]

    with pytest.raises(ToolError, match="Refused"):
        await WebFetchTool(resolver=resolver).prepare({"url": "https://rebind.example/"}, ctx)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://x/", "no-scheme"])
async def test_web_fetch_accepts_only_http_and_https(url: str, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="Only http and https"):
        await WebFetchTool().prepare({"url": url}, ctx)


async def test_html_is_converted_to_readable_text_without_scripts_or_styles(
    server: str, private_ok: ToolContext
) -> None:
    result = await fetch(WebFetchTool(), f"{server}/html", private_ok)
    body = result.content.split("\n\n", 1)[1]
    assert body == "# Test Page\n\nHello\n\nFirst para & more.\n\none\n\ntwo"
    assert result.ok and result.metadata["content_type"] == "text/html"


async def test_json_passes_through_pretty_printed(server: str, private_ok: ToolContext) -> None:
    result = await fetch(WebFetchTool(), f"{server}/json", private_ok)
    assert json.loads(result.content.split("\n\n", 1)[1]) == {"a": [1, 2]}


async def test_large_responses_are_capped_for_download_and_for_the_model(
    server: str, private_ok: ToolContext
) -> None:
    result = await fetch(WebFetchTool(), f"{server}/big", private_ok)
    assert result.truncated
    assert "[truncated: download stopped at 2 MiB; the rest of the page is left out]" in result.content
    page = page_chars(private_ok.output_budget)
    total = 2 * 1024 * 1024
    assert f"[truncated: characters 0–{page} of {total} shown; continue with web_fetch" in result.content
    assert result.content.count("y") == page
    assert len(result.content) <= private_ok.output_budget


async def test_a_long_page_is_read_whole_through_offset_pages(server: str, private_ok: ToolContext) -> None:
    tool = WebFetchTool()
    url = f"{server}/big"
    seen = 0
    offset = 0
    for _ in range(200):
        result = await tool.execute(
            await tool.prepare({"url": url, "offset": offset}, private_ok), private_ok
        )
        assert len(result.content) <= private_ok.output_budget
        seen += result.content.split("\n\n", 1)[1].count("y")
        found = re.search(r"continue with web_fetch url='[^']+' offset=(\d+)\]", result.content)
        if found is None:
            break
        offset = int(found.group(1))
    assert seen == 2 * 1024 * 1024


async def test_binary_content_is_refused(server: str, private_ok: ToolContext) -> None:
    with pytest.raises(ToolError, match="not text"):
        await fetch(WebFetchTool(), f"{server}/binary", private_ok)


async def test_redirects_are_followed_and_each_hop_is_vetted(server: str, ctx: ToolContext) -> None:
    tool = WebFetchTool(policy=only_127_0_0_1)
    ok = await fetch(tool, f"{server}/to-html", ctx)
    assert ok.metadata["url"] == f"{server}/html" and "Hello" in ok.content
    for hop in ("/to-private", "/to-metadata"):
        with pytest.raises(ToolError, match="Refused"):
            await fetch(tool, f"{server}{hop}", ctx)


async def test_too_many_redirects_stop_the_fetch(server: str, private_ok: ToolContext) -> None:
    with pytest.raises(ToolError, match="Too many redirects"):
        await fetch(WebFetchTool(), f"{server}/loop", private_ok)


async def test_the_connection_goes_to_the_vetted_address_with_the_original_host_header(
    server: str, ctx: ToolContext
) -> None:
    port = server.rsplit(":", 1)[1]
    lookups: list[str] = []

    async def resolver(host: str, p: int) -> list[IPAddress]:
        lookups.append(host)
        return [ipaddress.ip_address("127.0.0.1")]

    tool = WebFetchTool(resolver=resolver, policy=only_127_0_0_1)
    result = await fetch(tool, f"http://pinned.example:{port}/host", ctx)
    assert result.content.endswith(f"pinned.example:{port}")
    assert set(lookups) == {"pinned.example"}  # resolved by us only; the HTTP client never re-resolved

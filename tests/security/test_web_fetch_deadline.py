"""web_fetch has an overall deadline: a server dripping one byte at a time cannot hold a turn."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext, ToolError
from app.tools.web import WebFetchTool


async def test_a_slow_drip_is_stopped_at_the_overall_deadline(workspace: Path) -> None:
    async def drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
        try:
            while True:  # one byte well inside the per-read timeout, forever
                writer.write(b"x")
                await writer.drain()
                await asyncio.sleep(0.1)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(drip, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    ctx = ToolContext(workspace=workspace, allow_private_network=True)
    tool = WebFetchTool(overall_timeout_s=1.0)
    started = time.monotonic()
    try:
        prepared = await tool.prepare({"url": f"http://127.0.0.1:{port}/slow"}, ctx)
        with pytest.raises(ToolError, match="longer than 1 s"):
            await tool.execute(prepared, ctx)
    finally:
        server.close()
    assert time.monotonic() - started < 15  # bounded by the deadline, not the 20 s read timeout


@pytest.mark.timeout(120)
async def test_a_page_of_unclosed_markup_converts_without_hanging(workspace: Path) -> None:
    """Issue 33.6 (the web side): html.parser searched to the end of the page from every
    unclosed `<`; a megabyte of them took a quarter of an hour, on the event loop."""
    body = b"<html><body><p>visible words</p>" + b"<a" * 400_000 + b"<!--" * 100_000

    async def page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(page, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    ctx = ToolContext(workspace=workspace, allow_private_network=True)
    tool = WebFetchTool()
    try:
        prepared = await tool.prepare({"url": f"http://127.0.0.1:{port}/page"}, ctx)
        result = await tool.execute(prepared, ctx)
    finally:
        server.close()
    assert "visible words" in result.content and "<a<a" in result.content

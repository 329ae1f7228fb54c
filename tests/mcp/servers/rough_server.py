"""A misbehaving MCP test server (stdio, or streamable HTTP with `--http PORT`).

Tools: crash (exits mid-call), hang (never answers), big (10 MB of text), numbered_lines (with
`--numbered-lines`: many numbered lines, one longer than a page), progress (progress and
log notifications), whoami / echo_header (leak a secret back), fail (a tool error), bad_schema
(an invalid input schema), ask_person / ask_url (form and URL-mode elicitation). `--eras` adds
protocol_version (the version a request arrived under). Resources: a
text, an image blob and an opaque blob; prompt `review` (arguments, two messages). `--many N`
adds N more tools; `--dotted` adds `get.x` and `get_x` (one tool name after sanitising);
`--sse PORT` serves over SSE.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer("rough")


@server.tool()
def crash() -> str:
    """Exit the process in the middle of a call."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.sleep(3600)
    return "late"


@server.tool()
def big() -> str:
    """Return 10 MB of text."""
    return "x" * 10_000_000


@server.tool()
async def progress(ctx: Context) -> str:
    """Report progress and log lines, then answer."""
    await ctx.info("starting the work")
    for i in range(3):
        await ctx.report_progress(i + 1, 3, f"step {i + 1}")
    return "done"


@server.tool()
def fail() -> str:
    """Report a tool error."""
    raise ValueError("this tool always fails")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def look_up() -> str:
    """Look something up (the server marks it read-only)."""
    return "looked up"


@server.tool()
def prose() -> str:
    """Explain an OAuth failure in words (the word bearer in ordinary text)."""
    return "the jwt-bearer grant needs a bearer token from the Bearer of the account"


@server.tool()
def echo_token() -> str:
    """Echo the ROUGH_TOKEN variable (a careless server leaking a secret)."""
    return "token=" + os.environ.get("ROUGH_TOKEN", "")


@server.tool()
def echo_header(ctx: Context) -> str:
    """Echo the Authorization header and the query of the HTTP request (a careless server)."""
    request = ctx.request_context.request
    if request is None:
        return "auth="
    return f"auth={request.headers.get('authorization', '')} query={request.url.query}"


class Person(BaseModel):
    name: str
    age: int = 30
    happy: bool = True


@server.tool()
async def ask_person(ctx: Context) -> str:
    """Ask the user for a person (elicitation)."""
    result = await ctx.elicit("Who should I greet?", Person)
    if result.action == "accept" and result.data is not None:
        return f"accepted {result.data.name} {result.data.age} {result.data.happy}"
    return result.action


@server.tool()
async def ask_url(ctx: Context) -> str:
    """Ask the user to open a web page (URL-mode elicitation)."""
    result = await ctx.elicit_url("Pay for the upgrade", "https://pay.example.com/checkout?x=1", "pay-1")
    return result.action


@server.tool()
def bad_schema() -> str:
    """A tool whose input schema is broken."""
    return "still callable"


# Passes the wire format (an object schema) but is not valid JSON Schema: a provider would reject it.
server._tool_manager._tools["bad_schema"].parameters = {
    "type": "object",
    "properties": {"x": {"type": "no-such-type"}},
}

# Resources and prompts for the composer's attach/insert tests.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415408d763f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


@server.resource("rough://notes", name="notes", mime_type="text/markdown")
def notes() -> str:
    """Meeting notes (text)."""
    return "# Notes\nShip on Friday. 周五发布。"


@server.resource("rough://dot.png", name="dot", mime_type="image/png")
def dot() -> bytes:
    """A one-pixel image (a blob)."""
    return TINY_PNG


@server.resource("rough://data.bin", name="data", mime_type="application/octet-stream")
def data() -> bytes:
    """Opaque bytes (a blob that is neither text nor an image)."""
    return bytes(range(256))


@server.prompt()
def review(topic: str, tone: str = "friendly") -> list[dict[str, Any]]:
    """Review something: a user and an assistant message."""
    return [
        {"role": "user", "content": f"Review {topic} in a {tone} tone."},
        {"role": "assistant", "content": "Sure — what should I focus on?"},
    ]


if "--many" in sys.argv:
    count = int(sys.argv[sys.argv.index("--many") + 1])
    for i in range(count):

        def make(i: int = i) -> str:
            return f"tool {i}"

        server.add_tool(make, name=f"extra_tool_{i}", description=f"Extra tool number {i} for load tests")


def numbered_lines(count: int = 1_500, long_at: int = 700) -> str:
    """Return `count` numbered lines of 100 characters; line `long_at` has 30,000 characters."""
    lines = []
    for n in range(1, count + 1):
        width = 30_000 if n == long_at else 100
        lines.append(f"line {n:05d} ".ljust(width - 4, "." if n != long_at else "~") + f" {n % 97:02d}")
    return "\n".join(lines) + f"\nLAST LINE {count}"


def protocol_version(ctx: Context) -> str:
    """Say which MCP protocol version this request arrived under."""
    return f"protocol={ctx.protocol_version}"


if "--eras" in sys.argv:
    server.add_tool(protocol_version)

if "--numbered-lines" in sys.argv:
    server.add_tool(numbered_lines)

if "--dotted" in sys.argv:
    server.add_tool(lambda: "dotted", name="get.x", description="A name with a dot")
    server.add_tool(lambda: "plain", name="get_x", description="A provider-safe name")

if "--long-descriptions" in sys.argv:
    # Real servers document tools at length; 9,000 characters must arrive whole, 12,000 cut with a marker.
    server.add_tool(lambda: "long", name="long_doc", description="L" * 8_990 + " END-OF-DOC")
    server.add_tool(lambda: "longer", name="longer_doc", description="M" * 12_000)

if __name__ == "__main__":
    if "--print-token" in sys.argv:  # a careless server logging its secret, in three encodings
        import base64
        import urllib.parse

        token = os.environ.get("ROUGH_TOKEN", "")
        print(f"token raw: {token}", file=sys.stderr)
        print(f"token b64: {base64.b64encode(('x' + token + chr(10)).encode()).decode()}", file=sys.stderr)
        print(f"token url: {urllib.parse.quote(token, safe='')}", file=sys.stderr)
        print("ready", file=sys.stderr, flush=True)
    if "--sse" in sys.argv:
        port = int(sys.argv[sys.argv.index("--sse") + 1])
        server.run(transport="sse", host="127.0.0.1", port=port)
    elif "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run(transport="streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()

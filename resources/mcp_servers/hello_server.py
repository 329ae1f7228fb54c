"""The built-in test MCP server: `say_hello` -> "Hello, Cash", one resource and one prompt.

Run by the three built-in catalog entries (see mcp_config.json); each transport has its own
small `server.py` so a user can read exactly what runs.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer


def build(name: str) -> MCPServer:
    server = MCPServer(name, instructions="A test server that greets Cash.")

    @server.tool(annotations={"readOnlyHint": True})
    def say_hello() -> str:
        """Say hello to Cash (a test tool for checking that MCP works)."""
        return "Hello, Cash"

    @server.resource("cash://readme", name="readme", mime_type="text/plain")
    def readme() -> str:
        """What this test server is for."""
        return f"{name}: a built-in CashCode test server."

    @server.prompt()
    def greet(person: str) -> str:
        """A prompt that asks the assistant to greet someone."""
        return f"Please greet {person} warmly."

    return server

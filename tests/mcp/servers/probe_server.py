"""An MCP test server (stdio) that reports what its sandbox lets it do: send a UDP datagram to
127.0.0.1, write a file in /tmp. Used by the sandbox's private-namespace tests."""

from __future__ import annotations

import os
import socket

from mcp.server.mcpserver import MCPServer

server = MCPServer("probe")


@server.tool()
def udp_send(port: int) -> str:
    """Send one UDP datagram to 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.sendto(b"FROM-SERVER", ("127.0.0.1", port))
        except OSError as exc:
            return f"failed: {exc}"
    return "sent"


@server.tool()
def write_tmp(name: str) -> str:
    """Write /tmp/NAME and read it back; say where TMPDIR points."""
    path = os.path.join("/tmp", name)
    try:
        with open(path, "w") as f:
            f.write("from the server")
        with open(path) as f:
            return f"wrote {f.read()!r}; TMPDIR={os.environ.get('TMPDIR', '')}"
    except OSError as exc:
        return f"failed: {exc}"


if __name__ == "__main__":
    server.run()

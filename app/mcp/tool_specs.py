"""Names, descriptions and parameter schemas of `tool_search` and `mcp_prepare`, in a module
with no heavy imports: the model sees both in every turn, while the MCP service, its catalog and
the search index load only when a chat has MCP tools activated, an MCP server is @-selected, or
one of these tools is called (`cashcode ask` start-up budget, SPEC S14)."""

from __future__ import annotations

from app.contracts.messages import ToolSpec

TOOL_SEARCH = ToolSpec(
    name="tool_search",
    description=(
        "Search the MCP tools of the configured MCP servers (they are hidden until activated). "
        "Returns matching tools and servers; activate one with mcp_prepare(server) and then call "
        "its tool by the returned name."
    ),
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string", "description": "what the tool should do, in a few words"}},
        "required": ["query"],
    },
)

MCP_PREPARE = ToolSpec(
    name="mcp_prepare",
    description=(
        "Connect an MCP server (by its catalog name from tool_search) and activate its tools in this "
        "chat, so they can be called directly from the next step on."
    ),
    parameters={
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "the server's catalog name"},
            "tools": {
                "type": "array",
                "items": {"type": "string"},
                "description": "optional: only these tool names (default: all, up to 50)",
            },
        },
        "required": ["server"],
    },
)

BASE_TOOLS = (TOOL_SEARCH, MCP_PREPARE)  # both read-only: they change nothing without a confirmed server

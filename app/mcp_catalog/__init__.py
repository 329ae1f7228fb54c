"""The MCP catalog: curated servers (resources/mcp_catalog) installed one click away into the
app's cache folder, each becoming a normal user MCP entry (app/mcp)."""

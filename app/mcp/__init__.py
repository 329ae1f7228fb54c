"""MCP connectors: catalogs, connections, deferred activation (docs/architecture.md)."""

"""`sections.mcp_catalog` of settings.json: the MCP Registry's base URL ("" = none; there is no
default, decision 221). `CASHCODE_MCP_REGISTRY_URL` overrides it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

ENV_REGISTRY_URL = "CASHCODE_MCP_REGISTRY_URL"


class McpCatalogPrefs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    registry_url: str = Field(default="", max_length=500)

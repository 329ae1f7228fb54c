"""The `web_search` tool as the model sees it, without importing the search backends (HTML
parsing): those load when the tool is first called (`cashcode ask` start-up budget)."""

from __future__ import annotations

from app.contracts.messages import ToolSpec
from app.websearch.model import MAX_RESULTS

WEB_SEARCH = ToolSpec(
    name="web_search",
    description="Search the web and return up to 10 results (title, URL, snippet). Use web_fetch to read a "
    "result's page.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to search for"},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RESULTS,
                "description": "results (default 10)",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)

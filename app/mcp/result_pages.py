"""Long MCP text results, read in pages within the output budget.

An MCP call cannot be repeated to get "the rest" (it may change things), so a result longer
than one page is kept here, in memory, and the model reads on with `mcp_result_page`. Bounded:
the newest MAX_KEPT results of the process; an evicted id answers that it is gone.

A page ends at a line end, so no line is split between two pages, except a line longer than a
page: the page then ends inside it and its marker says so (decision 361).
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from app.contracts.messages import ToolSpec
from app.contracts.tool_args import opt_int, req_str
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolError, ToolResult
from app.support.paging import char_marker, page_chars

MAX_KEPT = 32

MCP_RESULT_PAGE = ToolSpec(
    name="mcp_result_page",
    description=(
        "Read the next page of a long MCP tool result, with the id and offset its [truncated …] marker gives."
    ),
    parameters={
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "the result id from the marker"},
            "offset": {"type": "integer", "minimum": 0, "description": "first character to return"},
        },
        "required": ["id", "offset"],
        "additionalProperties": False,
    },
)


class ResultPages:
    def __init__(self, max_kept: int = MAX_KEPT) -> None:
        self._kept: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._max = max_kept

    def has(self, chat_id: str) -> bool:
        return any(chat == chat_id for chat, _ in self._kept)

    def first_page(self, chat_id: str, text: str, budget: int) -> tuple[str, bool]:
        """`text` when it fits one page; else its first page with the marker (and keep it)."""
        room = page_chars(budget)
        if len(text) <= room:
            return text, False
        result_id = uuid.uuid4().hex[:12]
        self._kept[(chat_id, result_id)] = text
        while len(self._kept) > self._max:
            self._kept.popitem(last=False)
        return self.page(chat_id, result_id, 0, budget), True

    def page(self, chat_id: str, result_id: str, offset: int, budget: int) -> str:
        text = self._kept.get((chat_id, result_id))
        if text is None:
            raise ToolError(
                f"No kept MCP result {result_id!r} in this chat (only the newest {self._max} are kept); "
                "call the MCP tool again if you still need it."
            )
        if offset >= len(text):
            return f"[the result has {len(text)} characters; nothing is left after offset={offset}]"
        shown, next_offset, inside_line = line_page(text, offset, page_chars(budget))
        how = f"mcp_result_page id={result_id!r}"
        marker = char_marker(offset, len(shown), len(text), next_offset, how=how)
        if marker and inside_line:
            marker = marker[:-1] + (
                "; this page ends inside a line longer than one page, the next page goes on with that line]"
            )
        return shown + (f"\n{marker}" if marker else "")


def line_page(text: str, offset: int, max_chars: int) -> tuple[str, int | None, bool]:
    """Characters `offset`.. of `text` up to `max_chars`, ending after the last whole line that
    fits; the next offset (None: the end was reached); and whether the page had to end inside
    a line because no line end fits (a line longer than a page)."""
    end = offset + max_chars
    if end >= len(text):
        return text[offset:], None, False
    brk = text.rfind("\n", offset, end)
    if brk == -1:
        return text[offset:end], end, True
    return text[offset : brk + 1], brk + 1, False


class McpResultPageTool(Tool):
    name = MCP_RESULT_PAGE.name
    description = MCP_RESULT_PAGE.description
    parameters = MCP_RESULT_PAGE.parameters
    read_only = True

    def __init__(self, pages: ResultPages) -> None:
        self._pages = pages

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        values = {
            "id": req_str(args, "id"),
            "offset": opt_int(args, "offset", default=0, lo=0, hi=10**9) or 0,
        }
        return PreparedCall(tool=self.name, args=values, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        text = self._pages.page(ctx.chat_id, call.args["id"], call.args["offset"], ctx.output_budget)
        return ToolResult(ok=True, content=text, truncated="[truncated:" in text)

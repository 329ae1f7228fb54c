"""A stdio "server" that is not an MCP server: one clear line instead of a traceback.

When the configured program prints ordinary text on stdout, the SDK logs every line it cannot
parse as JSON-RPC at ERROR with a traceback, then reports "Connection closed". The connection
that started the program collects those lines instead (the SDK's reader task runs in a context
copied from the connecting task, so a context variable names the right connection), and the
connect error says what the program printed.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from app.contracts.errors import say

SDK_LOGGER = "mcp.client.stdio"
_PARSE_FAILURE = "Failed to parse JSONRPC message"
_KEEP = 3  # lines kept per connection
_CURRENT: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "cashcode_mcp_not_mcp", default=None
)


def _offending_line(record: logging.LogRecord) -> str:
    exc = record.exc_info[1] if record.exc_info else None
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            value = errors()[0].get("input")
        except (IndexError, AttributeError, TypeError, ValueError):
            value = None
        if isinstance(value, str):
            return value
    return ""


class _CollectParseFailures(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        sink = _CURRENT.get()
        if sink is None or not str(record.msg).startswith(_PARSE_FAILURE):
            return True
        if len(sink) < _KEEP:
            sink.append(_offending_line(record)[:200])
        return False  # told once, in the connect error


_FILTER = _CollectParseFailures()


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Lines a program printed that are not MCP messages, for the connection in this context."""
    logger = logging.getLogger(SDK_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)  # idempotent; passes every record of other connections
    sink: list[str] = []
    token = _CURRENT.set(sink)
    try:
        yield sink
    finally:
        _CURRENT.reset(token)


def not_mcp_message(lines: list[str]) -> str:
    shown = next((line for line in lines if line.strip()), lines[0] if lines else "")
    return say("mcp.not_mcp_output", output=shown.strip()[:120])

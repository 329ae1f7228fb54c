"""The MCP SDK logs a server line that is not JSON-RPC at ERROR with a full traceback
(`mcp.client.stdio`), once per line. A program that does not speak MCP (or prints a banner)
then fills the terminal with tracebacks before the one real error: the connection failed.
That record is kept as one DEBUG line with the start of what the server printed; the
connect error itself says the server did not answer as an MCP server."""

from __future__ import annotations

import logging

SDK_LOGGER = "mcp.client.stdio"
_PARSE_FAILURE = "Failed to parse JSONRPC message"


class _ParseFailureAsDebug(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith(_PARSE_FAILURE):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info, record.exc_text = None, None
        return True


def quiet_parse_failures() -> None:
    """Install the filter once (idempotent: services are created more than once in tests)."""
    logger = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(f, _ParseFailureAsDebug) for f in logger.filters):
        logger.addFilter(_ParseFailureAsDebug())

"""uvicorn's h11 protocol with the fake's own logger.

Passing `log_level` to uvicorn would change the global `uvicorn.*` loggers for the whole test
process; instead each connection logs to `app.testing.fake_llm.http`, where the deliberate
mid-stream abort (`disconnect_after`) is not reported as an error.
"""

from __future__ import annotations

import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

_ABORT_MESSAGE = "ASGI callable returned without completing response."


class _DropDeliberateAbort(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _ABORT_MESSAGE


LOGGER = logging.getLogger("app.testing.fake_llm.http")
LOGGER.addFilter(_DropDeliberateAbort())


class FakeH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = LOGGER
        self.access_logger = LOGGER
        self.access_log = False

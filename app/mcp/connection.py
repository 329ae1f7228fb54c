"""One live connection to one MCP server, held by ONE owner task.

The SDK's `Client` scope must be exited by the task that entered it (anyio cancel scopes), so
`connect()` starts an owner task that enters the scope, publishes the client and waits for
`disconnect()`; every other task only calls methods on the published client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal

from app.contracts.errors import Said, say

Status = Literal["disconnected", "connecting", "connected", "failed"]
Opener = Callable[[], AbstractAsyncContextManager[Any]]

_log = logging.getLogger(__name__)


# What the SDK raises when the other side hung up or refused the handshake before answering it.
_HANDSHAKE_FAILURES = ("Connection closed", "Method not found")


def not_mcp(cause: str) -> str:
    """A failed connect that never got an MCP answer says so (the SDK's words alone — "Connection
    closed" — do not tell the user the program is not an MCP server)."""
    if cause in _HANDSHAKE_FAILURES:
        return say("mcp.not_mcp_handshake", cause=cause)
    return cause


@dataclass(frozen=True)
class ToolDef:
    """A server's tool as we keep it (cache file, index, model spec)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only_hint: bool | None = None
    diagnostic: str | None = None  # e.g. an invalid input schema we replaced
    # MCP Apps (app/mcp/apps.py): the tool's `ui://` page, and who may call it.
    ui_resource_uri: str | None = None
    visibility: tuple[str, ...] = ("model", "app")


class ServerGone(Exception):
    """The server closed the connection or crashed."""


class ResultTooLarge(ServerGone):
    """A result did not fit in one server-sent event (the SDK's SSE client reads at most 1 MiB
    per event and then drops the connection): retrying the same call cannot help."""


class Connection:
    def __init__(
        self,
        name: str,
        opener: Opener,
        *,
        on_change: Callable[[Connection], None],
        redact: Callable[[str], str],
        after_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.name = name
        self.status: Status = "disconnected"
        self.error: str | None = None
        # The failure's catalog entry and what it names (redacted), for the UI's own wording.
        self.error_key = ""
        self.error_params: dict[str, str] = {}
        self.tools: list[ToolDef] = []
        self.client: Any = None
        self.ended_by: BaseException | None = None  # why the session last ended on its own
        self._opener = opener
        self._on_change = on_change
        self._redact = redact
        self._after_close = after_close
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def _set(self, status: Status, error: str | None = None) -> None:
        if isinstance(error, Said):  # keep the key: the text is rebuilt from redacted params
            worded = Said(error.key, {k: self._redact(v) for k, v in error.params.items()})
            self.error, self.error_key, self.error_params = worded, worded.key, worded.params
        else:
            self.error = self._redact(error) if error else None
            self.error_key, self.error_params = "", {}
        self.status = status
        self._on_change(self)

    async def connect(self, list_tools: Callable[[Any], Awaitable[list[ToolDef]]], timeout_s: float) -> None:
        """Open the session and list the tools; raises (and marks failed) on error."""
        if self._task is not None and not self._task.done():
            raise RuntimeError("already connected")
        self._stop = asyncio.Event()
        self.ended_by = None
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._set("connecting")
        self._task = asyncio.create_task(self._owner(ready, list_tools), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout_s)
        except TimeoutError:
            await self._end()
            self._set("failed", say("mcp.no_answer", seconds=f"{timeout_s:.0f}"))
            raise ServerGone(self.error) from None
        except BaseException as exc:
            await self._end()
            if not isinstance(exc, asyncio.CancelledError):
                self._set("failed", not_mcp(describe(exc)))
                raise ServerGone(self.error) from exc
            self._set("disconnected")
            raise

    async def _owner(
        self, ready: asyncio.Future[None], list_tools: Callable[[Any], Awaitable[list[ToolDef]]]
    ) -> None:
        try:
            async with self._opener() as client:
                tools = await list_tools(client)
                self.client, self.tools = client, tools
                ready.set_result(None)
                self._set("connected")
                await self._stop.wait()
        except BaseException as exc:
            self.ended_by = exc
            if not ready.done():
                ready.set_exception(exc)
            elif not self._stop.is_set() and not isinstance(exc, asyncio.CancelledError):
                _log.warning("MCP server %s ended: %s", self.name, self._redact(describe(exc)))
                self._set("failed", say("mcp.ended", reason=describe(exc)))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.client = None
            if self._after_close is not None:
                with contextlib.suppress(Exception):
                    await self._after_close()

    async def _end(self) -> None:
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), 15)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except BaseException:  # the owner already reported what happened
            _log.debug("MCP owner task of %s ended with an error", self.name, exc_info=True)

    async def disconnect(self) -> None:
        await self._end()
        self.client = None
        self._set("disconnected")

    async def crashed(self, reason: str) -> None:
        """A call found the server gone: close the session and report it (reconnectable)."""
        await self._end()
        self._set("failed", reason)


def describe(exc: BaseException) -> str:
    """A one-line reason from an exception (or the first leaf of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    first_arg = exc.args[0] if len(exc.args) == 1 else None
    if isinstance(first_arg, Said) and "\n" not in first_arg:
        return first_arg  # a worded reason keeps its key
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:500]

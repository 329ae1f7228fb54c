"""Elicitation: a server asks the user for input in the middle of a call (form mode).

Surfaces with a UI (desktop, serve) call `enable()` at start; the request becomes an
`McpElicitation` event and waits for `mcp.elicitation.answer`. Without a UI (the CLI), or when
nobody answers in time, the request is declined/cancelled — never answered for the user.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Literal

from app.contracts.events import AppEvent
from app.mcp.events import McpElicitation

Action = Literal["accept", "decline", "cancel"]
ANSWER_TIMEOUT_S = 600.0


class ElicitationError(ValueError):
    """The answer does not fit the server's schema (the message says why)."""


def defaults_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


class Elicitations:
    def __init__(self, publish: Callable[[AppEvent], None], timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        self._publish = publish
        self._timeout_s = timeout_s
        self._pending: dict[
            str, tuple[asyncio.Future[tuple[Action, dict[str, Any] | None]], dict[str, Any]]
        ] = {}
        self.interactive = False

    def enable(self) -> None:
        self.interactive = True

    async def ask(
        self,
        server: str,
        message: str,
        schema: dict[str, Any],
        *,
        chat_id: str = "",
        turn_id: str = "",
        tool: str = "",
    ) -> tuple[Action, dict[str, Any] | None]:
        if not self.interactive:
            return "decline", None
        request_id = uuid.uuid4().hex
        future: asyncio.Future[tuple[Action, dict[str, Any] | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._pending[request_id] = (future, schema)
        opened = McpElicitation(
            id=request_id,
            server=server,
            chat_id=chat_id,
            turn_id=turn_id,
            tool=tool,
            message=message[:4_000],
            requested_schema=schema,
            defaults=defaults_of(schema),
        )
        self._publish(opened)
        outcome: str | None = None
        try:
            answer = await asyncio.wait_for(future, self._timeout_s)
            outcome = answer[0]
            return answer
        except TimeoutError:
            outcome = "timeout"
            return "cancel", None
        finally:
            self._pending.pop(request_id, None)
            closed = {"requested_schema": {}, "defaults": {}, "closed": True, "outcome": outcome}
            self._publish(opened.model_copy(update=closed))

    def answer(self, request_id: str, action: Action, content: dict[str, Any] | None) -> bool:
        pending = self._pending.get(request_id)
        if pending is None or pending[0].done():
            return False
        future, schema = pending
        if action == "accept":
            content = {**defaults_of(schema), **(content or {})}
            _validate(content, schema)
        future.set_result((action, content if action == "accept" else None))
        return True


def _validate(content: dict[str, Any], schema: dict[str, Any]) -> None:
    import jsonschema  # a dependency of the MCP SDK

    try:
        jsonschema.validate(content, schema)
    except jsonschema.ValidationError as exc:
        raise ElicitationError(f"the answer does not fit the form: {exc.message}") from None
    except jsonschema.SchemaError:
        allowed = set((schema.get("properties") or {}).keys())
        if not set(content) <= allowed:
            raise ElicitationError("the answer has fields the form does not ask for") from None

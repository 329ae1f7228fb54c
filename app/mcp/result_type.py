"""A 2026-07-28 result without `resultType` is a complete one.

The spec says a client MUST treat an absent `resultType` as "complete" (the field is new in
2026-07-28, and servers built on older libraries leave it out), but the pinned SDK validates
every result against the 2026-07-28 wire schema, which requires it, and fails the call. Here
the session's request sender gets a thin wrapper that fills in the default before that check;
a result that says anything else is left alone (conformance scenario
`sep-2322-client-request-state`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

_Send = Callable[[str, Any, Any], Awaitable[Any]]


def default_result_type(client: Any) -> None:
    """Wrap `client`'s request sender when it speaks a stateless (2026-07-28+) version. This
    reaches into the session's dispatcher (the SDK is pinned exactly); without one, nothing
    changes."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    dispatcher = getattr(client.session, "_dispatcher", None)
    send: _Send | None = getattr(dispatcher, "send_raw_request", None)
    if send is None or client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return

    async def send_raw_request(method: str, params: Any, opts: Any) -> Any:
        raw = await send(method, params, opts)
        if isinstance(raw, dict) and "resultType" not in raw:
            return {**raw, "resultType": "complete"}
        return raw

    dispatcher.send_raw_request = send_raw_request  # type: ignore[union-attr]

"""The pywebview js_api object: `window.pywebview.api.invoke(route, payload)`.

pywebview exposes every public attribute of js_api recursively and runs each JS call on its
own thread (tech-notes §1.1), so this class has exactly one public method and keeps the app
and the loop in `_private` attributes. The method is sync on purpose: `async def` methods are
not supported by pywebview 6.2.1; it hands the coroutine to the core loop and waits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Awaitable, Coroutine, Mapping
from typing import Any, Protocol

log = logging.getLogger(__name__)

Envelope = dict[str, Any]


class Invoker(Protocol):
    def invoke(self, route: str, payload: dict[str, Any]) -> Awaitable[Envelope]: ...


def error_envelope(code: str, message: str, **details: str) -> Envelope:
    return {"ok": False, "error": {"code": code, "message": message, "details": details}}


class PendingCalls:
    """The bridge's in-flight calls. pywebview's call threads are not daemons: one still
    waiting on the core loop when it stops would keep the process alive after the window
    closed, so shutdown `close`s them. Kept outside `Bridge`, whose public methods the page
    can call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: set[concurrent.futures.Future[Envelope]] = set()
        self._closed = False

    def submit(
        self, call: Coroutine[Any, Any, Envelope], loop: asyncio.AbstractEventLoop
    ) -> concurrent.futures.Future[Envelope] | None:
        with self._lock:
            try:
                if self._closed:
                    raise RuntimeError("bridge closed")
                future = asyncio.run_coroutine_threadsafe(call, loop)
            except RuntimeError:
                call.close()
                return None
            self._pending.add(future)
            return future

    def done(self, future: concurrent.futures.Future[Envelope]) -> None:
        with self._lock:
            self._pending.discard(future)

    def close(self) -> None:
        """Answer every waiting call at once and refuse new ones."""
        with self._lock:
            self._closed = True
            pending = list(self._pending)
        for future in pending:
            future.cancel()


class Bridge:
    """`app` may be the app itself or a future of it (created on `loop`): the window opens while
    the app is still being built, and early calls simply wait for it."""

    def __init__(
        self,
        app: Invoker | asyncio.Future[Any],
        loop: asyncio.AbstractEventLoop,
        *,
        timeout_s: float = 60.0,
        route_timeouts: Mapping[str, float | None] | None = None,
        calls: PendingCalls | None = None,
    ) -> None:
        self._app = app
        self._loop = loop
        self._timeout_s = timeout_s
        # Routes that wait for the user (native dialogs) must not time out under them.
        self._route_timeouts = dict(route_timeouts or {})
        self._calls = calls if calls is not None else PendingCalls()

    def invoke(self, route: str, payload: dict[str, Any] | None = None) -> Envelope:
        """Call one API route; always answers with an envelope, never raises into the page."""
        if not isinstance(route, str):
            return error_envelope("invalid", "route must be a string")
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            return error_envelope("invalid", "payload must be an object", route=route)
        call = self._call(route, payload)
        future = self._calls.submit(call, self._loop)
        if future is None:  # closed, or the window outlived the core during shutdown
            return error_envelope("unsupported", "CashCode is shutting down", route=route)
        started = time.perf_counter()
        timeout_s = self._route_timeouts.get(route, self._timeout_s)
        try:
            return future.result(timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            message = f"{route} did not answer within {timeout_s:g} s"
            return error_envelope("internal", message, route=route, reason="timeout")
        except concurrent.futures.CancelledError:
            return error_envelope("internal", f"{route} was cancelled", route=route, reason="cancelled")
        finally:
            self._calls.done(future)
            log.debug("bridge %s answered in %.1f ms", route, (time.perf_counter() - started) * 1000)

    async def _call(self, route: str, payload: dict[str, Any]) -> Envelope:
        try:
            # shield: a call that times out must not cancel the shared start-up future.
            app = await asyncio.shield(self._app) if isinstance(self._app, asyncio.Future) else self._app
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # start-up failed; every call reports why
            return error_envelope("internal", f"CashCode could not start: {exc}", route=route)
        try:
            return await app.invoke(route, payload)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the boundary: a bug below must become an envelope, not a JS stack
            log.exception("route %s raised", route)
            return error_envelope("internal", f"{type(exc).__name__}: {exc}", route=route)


# pywebview lists the js_api's public methods to the page, which builds a stub for each with
# `new Function(...)`; under the UI's `script-src 'self'` that throws an EvalError on every
# page load (issue 41). Marked unlisted, pywebview builds none (it still dispatches calls by
# name), and app/desktop/strict_csp.py defines `pywebview.api.invoke` as a plain closure.
setattr(Bridge.invoke, "_serializable", False)  # noqa: B010 - an attribute pywebview reads

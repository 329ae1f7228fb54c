"""Building, wiring and closing the app on the core loop (all coroutines run there)."""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from app.desktop.assets import startup_failed_page
from app.desktop.pusher import EventPusher
from app.settings.paths import AppPaths

log = logging.getLogger(__name__)

T = TypeVar("T")

GATE_TIMEOUT_S = 5.0


class _Bus(Protocol):
    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...


class DesktopApp(Protocol):
    """What the shell needs from `CashCodeApp` (app/api)."""

    @property
    def bus(self) -> _Bus: ...

    def invoke(self, route: str, payload: dict[str, Any]) -> Awaitable[dict[str, Any]]: ...
    def register_route(self, name: str, handler: Callable[..., Any]) -> None: ...
    def aclose(self) -> Awaitable[None]: ...


AppFactory = Callable[[AppPaths, Mapping[str, str]], Any]
"""Builds the app on the core loop; may return the app or an awaitable of it."""


# The page's first requests are answered before Skill hot reload, the knowledge watchers and the
# task scheduler start (docs/decisions.md 206).
BACKGROUND_DELAY_S = 0.5


async def default_factory(paths: AppPaths, env: Mapping[str, str]) -> Any:
    from app.settings.secrets import SecretStore

    secrets = SecretStore()
    secrets.warm()  # keyring's backend detection overlaps the import and build below
    from app.api.bootstrap import build_app  # lazy: the import is most of the build time

    app = build_app(paths, env, secrets=secrets)
    app.start_background_soon(BACKGROUND_DELAY_S)
    from app.server.local_api import with_local_api  # Settings → Local API (off by default)

    return await with_local_api(app, env)


async def start_app(
    factory: AppFactory, paths: AppPaths, env: Mapping[str, str], gate: threading.Event | None = None
) -> DesktopApp:
    """Build the app; with a `gate`, first wait (bounded) until it opens.

    The desktop opens the gate when the main page has loaded: importing and building the app
    is Python work that, on two cores, competed with the page load (the renderer, the GPU
    process, pywebview's asset server) and delayed the first paint. Measured (docs/decisions.md):
    visible 1.69-2.04x the floor instead of 2.09-3.01x, interactive 0.1-0.8 s later."""
    if gate is not None:
        await asyncio.get_running_loop().run_in_executor(None, gate.wait, GATE_TIMEOUT_S)
    built = factory(paths, env)
    if inspect.isawaitable(built):
        built = await built
    return built  # type: ignore[no-any-return]


async def spawn(coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """Start `coro` as a task of the core loop; returns the task without waiting for it."""
    return asyncio.get_running_loop().create_task(coro)


async def wire_app(
    app_task: asyncio.Future[DesktopApp],
    window: Any,
    pushers: EventPusher | Sequence[EventPusher],
    on_ready: Callable[[DesktopApp], None] | None = None,
) -> None:
    """Once the app exists: feed its events to every window's pusher, serve the native dialogs
    and hand the app to `on_ready` (the shell's routes). If it could not be built, show why in
    the (main) window instead of a UI that cannot work."""
    try:
        app = await app_task
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # start-up boundary: any failure must reach the user, readably
        log.exception("CashCode could not start")
        page = startup_failed_page(exc)
        # load_html waits on the GUI thread: never call it from the core loop itself.
        threading.Thread(
            target=window.load_html, args=(page,), name="show-startup-error", daemon=True
        ).start()
        return
    from app.desktop.dialogs import register_dialog_routes  # lazy: pulls in the API models
    from app.desktop.open_path import register_open_routes

    for pusher in [pushers] if isinstance(pushers, EventPusher) else pushers:
        app.bus.subscribe(pusher.emit)  # no unsubscribe needed: the app is closed before the pushers go
    register_dialog_routes(app, window)
    register_open_routes(app)
    if on_ready is not None:
        on_ready(app)


async def close_app(app_task: asyncio.Future[DesktopApp], timeout_s: float) -> None:
    """Close the app (cancels running turns, kills child processes); waits for a build in flight."""
    try:
        app = await asyncio.wait_for(asyncio.shield(app_task), timeout_s)
    except TimeoutError:
        app_task.cancel()
        return
    except Exception:  # start-up failed: nothing to close (already reported by wire_app)
        return
    await asyncio.wait_for(app.aclose(), timeout_s)

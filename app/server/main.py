"""`cashcode serve`: the CashCode UI in a browser, on 127.0.0.1 only (SPEC S12).

Prints a per-process capability URL; opening it sets the session cookie. There is no --host on
purpose, and a busy port is an error rather than a silent move to another port.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import webbrowser
from collections.abc import Callable, Mapping
from pathlib import Path

from app.server.auth import AccessPolicy
from app.server.contracts import ServedApp
from app.server.hosting import LifespanHost
from app.server.http import create_http_app
from app.server.runner import LOOPBACK, LocalServer, PortInUse, bind_loopback, bound_port
from app.server.runtime_file import RuntimeFile, RuntimeInfo, runtime_dir

DEFAULT_PORT = 8765


def default_static_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cashcode serve",
        description="Serve the CashCode UI to a browser on 127.0.0.1 only.",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 lets the system pick a free one)",
    )
    parser.add_argument("--no-open", action="store_true", help="only print the address; don't open a browser")
    parser.add_argument("--workspace", type=Path, help="the folder the agent works in (overrides settings)")
    return parser


async def build_cashcode_app(env: Mapping[str, str], workspace: Path | None) -> ServedApp:
    # Imported here so `cashcode --help` and the other commands don't pay for the whole app.
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths

    # Called from the lifespan, so the app is built on uvicorn's loop (its core loop).
    app = build_app(AppPaths.from_env(env), env, workspace=workspace)
    await app.start_background()  # Skill hot reload for a long-lived server
    served: ServedApp = app
    return served


def _error(message: str) -> int:
    print(f"cashcode serve: {message}", file=sys.stderr, flush=True)
    return 1


def _publish(runtime: RuntimeFile, policy: AccessPolicy) -> str:
    """Write serve.json for local scripts; the line to print about it."""
    info = RuntimeInfo(url=policy.base_url, port=policy.port, token=policy.api_token, pid=os.getpid())
    try:
        written = runtime.publish(info)
    except OSError as exc:
        return f"Scripts: could not write {runtime.path} ({exc.strerror or exc}); browser only."
    if not written:
        return f"Scripts: {runtime.path} belongs to another running server; it was left unchanged."
    return f"Scripts: URL and API token are in {runtime.path}"


def run(
    argv: list[str] | None = None,
    *,
    open_browser: Callable[[str], object] = webbrowser.open,
    environ: Mapping[str, str] | None = None,
) -> int:
    if argv is None:
        argv = sys.argv[1:]
        # Run as `cashcode serve ...`, the sub-command name is still in sys.argv.
        if argv[:1] == ["serve"]:
            argv = argv[1:]
    args = build_parser().parse_args(argv)
    env = dict(os.environ if environ is None else environ)
    workspace: Path | None = None
    if args.workspace is not None:
        workspace = args.workspace.expanduser().resolve()
        if not workspace.is_dir():
            return _error(f"workspace {workspace} is not a folder")
    if not 0 <= args.port <= 65535:
        return _error(f"--port must be between 0 and 65535, not {args.port}")
    try:
        sock = bind_loopback(args.port)
    except PortInUse:
        return _error(f"port {args.port} on {LOOPBACK} is already in use; choose another with --port")
    except OSError as exc:
        return _error(f"cannot listen on {LOOPBACK}:{args.port}: {exc.strerror or exc}")

    port = bound_port(sock)
    policy = AccessPolicy.create(port)
    static_dir = default_static_dir()
    host = LifespanHost(
        lambda: build_cashcode_app(env, workspace),
        lambda app: create_http_app(app, static_dir, policy),
    )

    runtime = RuntimeFile(runtime_dir(env))

    def announce() -> None:
        url = policy.start_url()
        print(
            "CashCode is running. Open this address (it works once, and only while this process runs):\n"
            f"  {url}\n{_publish(runtime, policy)}\nPress Ctrl+C to stop.",
            flush=True,
        )
        if not args.no_open:
            # Some browsers' launchers block until they exit; keep the event loop free.
            threading.Thread(target=open_browser, args=(url,), daemon=True).start()

    server = LocalServer(sock, host, on_started=announce)
    try:
        asyncio.run(server.serve())
    except KeyboardInterrupt:
        return 0  # Ctrl+C after a graceful shutdown: uvicorn re-raises the signal it caught
    except SystemExit:
        # uvicorn exits this way when start-up fails (e.g. the app could not be built).
        return _error(f"could not start: {host.startup_error or 'see the messages above'}")
    finally:
        runtime.remove()
        sock.close()
    if not server.started:
        return _error(f"could not start: {host.startup_error or 'see the messages above'}")
    return 0

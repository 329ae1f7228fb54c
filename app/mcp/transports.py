"""Opening an MCP `Client` for a resolved entry over stdio, SSE or Streamable HTTP, and starting
the built-in HTTP/SSE test servers on demand.

Every child process (stdio servers and launched HTTP servers) runs under `child_guard.py`, so it
dies with the app even on `kill -9` (see that module). A frozen build runs the guard through its
own executable (app/mcp/frozen.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from app.mcp import frozen
from app.mcp.config import Resolved
from app.mcp.not_mcp import collecting, not_mcp_message
from app.mcp.sandboxed import SandboxSource, SandboxUnavailable, confine_server
from app.mcp.stderr_log import open_private_log, redacted_stderr, useful_line

GUARD = frozen.GUARD
CONNECT_TIMEOUT_S = 60.0
LAUNCH_TIMEOUT_S = 60.0
STDERR_TAIL = 2_000
STDERR_SETTLE_S = 2.0  # how long a failed start waits for the child's last stderr lines


class ConnectError(Exception):
    """Connecting failed for a reason people can act on (the message is already redacted)."""


def guarded_argv(argv: Sequence[str], guard_args: Sequence[str] = ()) -> list[str]:
    """`argv` under the child guard (from source or frozen, app/mcp/frozen.py); `guard_args`
    (`--landlock PLAN`) tell the guard to confine itself first."""
    return frozen.guard_argv(os.getpid(), [*guard_args, *argv])


def find_program(command: str, env_path: str | None) -> str:
    """The absolute program path, or a clear error (no shell: the command is one program)."""
    found = shutil.which(command, path=env_path or os.environ.get("PATH", os.defpath))
    if found is None:
        raise ConnectError(f"the command {command!r} was not found (is it installed and on PATH?)")
    return found


def stderr_tail(path: Path) -> str:
    try:
        data = path.read_bytes()[-STDERR_TAIL:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


@contextlib.asynccontextmanager
async def open_client(
    resolved: Resolved,
    *,
    url: str,
    stderr_path: Path,
    client_kwargs: dict[str, Any],
    auth: Any = None,
    sandbox: SandboxSource | None = None,
) -> AsyncIterator[Any]:
    """`async with open_client(...) as client` — must be entered and exited in one task."""
    from mcp import Client

    entry = resolved.entry
    if entry.transport == "stdio":
        from mcp import StdioServerParameters

        env = dict(resolved.env)
        program = find_program(entry.command, env.get("PATH"))
        confined = None
        if entry.sandboxed:
            if sandbox is None:
                raise ConnectError("this server runs sandboxed, and the app offers no sandbox here")
            try:
                confined = confine_server(entry, program, {**os.environ, **env}, sandbox())
            except SandboxUnavailable as exc:
                raise ConnectError(
                    f"{exc} (the server was not started; turn its sandbox off to run it)"
                ) from exc
            env.update(confined.env)
        guarded = guarded_argv([program, *entry.args], confined.guard_args if confined else ())
        params = StdioServerParameters(command=guarded[0], args=guarded[1:], env=env)
        with contextlib.ExitStack() as stack:
            if confined is not None:
                stack.callback(confined.close)
            async with _stdio_client(params, resolved, stderr_path, client_kwargs) as client:
                yield client
        return
    import httpx2

    headers = dict(resolved.headers)
    if entry.transport == "sse":
        from mcp.client.sse import sse_client

        async with Client(
            sse_client(url, headers=headers, timeout=30, sse_read_timeout=300, auth=auth), **client_kwargs
        ) as c:
            yield c
        return
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(30, read=300)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth) as http,
        Client(streamable_http_client(url, http_client=http), **client_kwargs) as client,
    ):
        yield client


@contextlib.asynccontextmanager
async def _stdio_client(
    params: Any, resolved: Resolved, stderr_path: Path, client_kwargs: dict[str, Any]
) -> AsyncIterator[Any]:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    copied: threading.Event | None = None
    try:
        with (
            redacted_stderr(stderr_path, resolved.secret_values()) as (errlog, copied),
            collecting() as printed,
        ):
            try:
                async with Client(stdio_client(params, errlog=errlog), **client_kwargs) as client:
                    yield client
            except Exception as exc:
                if printed:  # it printed text, not JSON-RPC: say so (app/mcp/not_mcp.py)
                    raise ConnectError(not_mcp_message(printed)) from exc
                raise
    except Exception:
        if copied is not None:  # the caller quotes the log's tail: let the copier finish it
            await asyncio.to_thread(copied.wait, STDERR_SETTLE_S)
        raise


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Launched:
    """A built-in HTTP/SSE server the app started on 127.0.0.1 (stopped with the connection)."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        self.proc = proc
        self.port = port

    async def stop(self) -> None:
        if self.proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()


async def launch(command: str, args: Sequence[str], stderr_path: Path) -> Launched:
    """Start a loopback server with `${port}` filled in; returns once the port accepts."""
    port = free_port()
    argv = [command, *(a.replace("${port}", str(port)) for a in args)]
    with open_private_log(stderr_path) as err:
        proc = await asyncio.create_subprocess_exec(
            *guarded_argv(argv),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    launched = Launched(proc, port)
    try:
        async with asyncio.timeout(LAUNCH_TIMEOUT_S):
            while not await _accepts(port):
                if proc.returncode is not None:
                    line = useful_line(stderr_tail(stderr_path))
                    raise ConnectError(
                        f"the server exited at start ({line}; its whole output: {stderr_path})"
                    )
                await asyncio.sleep(0.05)  # polling a port we just asked a child to open
    except BaseException:
        await launched.stop()
        raise
    return launched


async def _accepts(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True

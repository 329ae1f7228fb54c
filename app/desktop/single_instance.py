"""One CashCode window per data folder: later launches hand their request to the running one.

Stdlib only (tech-notes §3.3): the first instance listens with
`multiprocessing.connection.Listener` on an AF_UNIX socket in the user's runtime folder (a
named pipe on Windows), protected by a random per-launch `authkey` kept next to it in a file
only the user can read. A later `cashcode desktop [--quick-ask …] [--import-skill …]` connects,
sends its arguments, waits for the acknowledgement and exits. A socket file left behind by a
crash (`kill -9`) refuses connections; it is unlinked and the launch becomes the primary.

The address is derived from the data folder, so two CashCodes on different data folders (tests,
portable installs) never talk to each other, while two on the same data folder (which would
fight over one database) cannot both run.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from app.support.atomic import atomic_write_bytes

log = logging.getLogger(__name__)

ENV_RUNTIME_DIR = "CASHCODE_RUNTIME_DIR"
APP_NAME = "CashCode"
CONNECT_TIMEOUT_S = 2.0
_MESSAGE_VERSION = 1


def runtime_dir(env: Mapping[str, str]) -> Path:
    """The platform's per-user runtime folder (`CASHCODE_RUNTIME_DIR` overrides it), created
    private to the user. Falls back to a per-user folder under the temp dir when the platform
    one cannot be created (e.g. no /run/user/<uid> for root in a container)."""
    override = env.get(ENV_RUNTIME_DIR, "").strip()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    candidates: list[Path] = []
    if override:
        candidates.append(Path(override).expanduser().absolute())
    elif sys.platform.startswith("linux"):
        if env.get("XDG_RUNTIME_DIR"):
            candidates.append(Path(env["XDG_RUNTIME_DIR"]) / APP_NAME)
        candidates.append(Path(tempfile.gettempdir()) / f"cashcode-{uid}")
    else:
        import platformdirs  # lazy: only the desktop launch needs it

        candidates.append(Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False)))
        candidates.append(Path(tempfile.gettempdir()) / f"cashcode-{uid}")
    for candidate in candidates:
        try:
            candidate.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            log.debug("runtime dir %s unusable: %s", candidate, exc)
            continue
        return candidate
    raise OSError(f"no usable runtime folder (tried {', '.join(map(str, candidates))})")


@dataclass(frozen=True)
class Endpoint:
    address: str
    family: str  # "AF_UNIX" or "AF_PIPE"
    key_path: Path


def endpoint_for(data_dir: Path, env: Mapping[str, str], platform: str = sys.platform) -> Endpoint:
    tag = hashlib.sha256(str(data_dir.resolve()).encode("utf-8")).hexdigest()[:16]
    base = runtime_dir(env)
    key_path = base / f"cashcode-{tag}.key"
    if platform == "win32":
        return Endpoint(rf"\\.\pipe\cashcode-{tag}", "AF_PIPE", key_path)
    # Short name on purpose: AF_UNIX paths are limited to ~108 bytes.
    return Endpoint(str(base / f"cashcode-{tag}.sock"), "AF_UNIX", key_path)


def _write_key(path: Path) -> bytes:
    """A fresh authkey, written atomically with owner-only permissions before we listen."""
    key = secrets.token_bytes(32)
    atomic_write_bytes(path, key, mode=0o600)
    return key


Handler = Callable[[list[str]], None]


class Primary:
    """The running instance's listener: each accepted connection carries one argv list."""

    def __init__(self, listener: Listener, endpoint: Endpoint, on_message: Handler) -> None:
        self._listener = listener
        self._endpoint = endpoint
        self._on_message = on_message
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="single-instance", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop listening and remove the socket and key (nothing stale is left on a clean exit)."""
        self._closed.set()
        try:
            self._listener.close()  # also unlinks the AF_UNIX socket file
        except OSError:
            pass
        self._endpoint.key_path.unlink(missing_ok=True)

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                conn = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):
                if self._closed.is_set():
                    return
                log.warning("single-instance: a connection failed authentication or broke")
                continue
            with conn:
                self._answer(conn)

    def _answer(self, conn: Connection) -> None:
        try:
            if not conn.poll(CONNECT_TIMEOUT_S):
                return
            message: Any = conn.recv()
            argv = _argv_of(message)
            if argv is None:
                conn.send({"ok": False, "error": "malformed message"})
                return
            # Acknowledge first: the handler only queues work, but the caller's 1 s budget
            # should not depend on it.
            conn.send({"ok": True})
        except (OSError, EOFError) as exc:
            log.info("single-instance: the other launch went away: %s", exc)
            return
        try:
            self._on_message(argv)
        except Exception:  # a bad request must never stop the listener
            log.exception("single-instance: handling %r failed", argv)


def _argv_of(message: Any) -> list[str] | None:
    if not isinstance(message, dict) or message.get("v") != _MESSAGE_VERSION:
        return None
    argv = message.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or len(argv) > 32:
        return None
    return list(argv)


def forward(endpoint: Endpoint, argv: list[str]) -> bool:
    """Hand `argv` to the running instance. False when nobody is listening (stale or absent)."""
    try:
        key = endpoint.key_path.read_bytes()
    except OSError:
        return False
    try:
        with Client(endpoint.address, family=endpoint.family, authkey=key) as conn:
            conn.send({"v": _MESSAGE_VERSION, "argv": argv})
            if not conn.poll(CONNECT_TIMEOUT_S):
                raise OSError("the running CashCode did not answer")
            reply = conn.recv()
    except (ConnectionRefusedError, FileNotFoundError):
        return False
    except (OSError, EOFError, AuthenticationError) as exc:
        # Auth failed (a key from another launch) or a broken peer: something live holds the
        # address, so starting a second CashCode on the same data would be wrong. Say so.
        raise OSError(f"could not reach the running CashCode: {exc}") from exc
    return isinstance(reply, dict) and reply.get("ok") is True


def acquire(endpoint: Endpoint, argv: list[str], on_message: Handler) -> Primary | None:
    """Become the primary (returns the started listener) or forward `argv` (returns None).

    Launches take turns under a lock file, so two started at once cannot both decide that
    nobody is running (or replace each other's key)."""
    with _launch_lock(endpoint.key_path.with_suffix(".lock")):
        if forward(endpoint, argv):
            return None
        if endpoint.family == "AF_UNIX":
            # Nobody answered: a socket file still there is stale (its owner died).
            Path(endpoint.address).unlink(missing_ok=True)
        key = _write_key(endpoint.key_path)
        listener = Listener(endpoint.address, family=endpoint.family, authkey=key)
    primary = Primary(listener, endpoint, on_message)
    primary.start()
    return primary


@contextmanager
def _launch_lock(path: Path) -> Iterator[None]:
    if sys.platform == "win32":  # a named pipe name cannot be taken twice; no stale files
        yield
        return
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released when the fd closes, also on a crash
        yield
    finally:
        os.close(fd)

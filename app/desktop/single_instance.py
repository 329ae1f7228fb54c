"""One CashCode window per data folder: later launches hand their request to the running one.

Stdlib only (tech-notes §3.3): the first instance listens with
`multiprocessing.connection.Listener` on an AF_UNIX socket in the user's runtime folder (a
named pipe on Windows), protected by a random per-launch `authkey` kept next to it in a file
only the user can read. A later `cashcode desktop [--quick-ask …] [--import-skill …]` connects,
sends its arguments, waits for the acknowledgement and exits. A socket file left behind by a
crash (`kill -9`) refuses connections; it is unlinked and the launch becomes the primary.

Security (issue 23 item 2): the messages are JSON through `send_bytes`/`recv_bytes` — never
`send`/`recv`, which pickle, so a peer's reply could run code. Both ends prove they hold the
authkey (the HMAC challenge of `multiprocessing.connection` runs in both directions, bytes
only). That only means something if nobody else can write the key: the runtime folder must be
a real folder owned by the user and closed to group and others (a `/tmp/cashcode-<uid>`
pre-created by another local user is refused, not used), and the key file must be a regular
file of the user's with mode 0600.

The address is derived from the data folder, so two CashCodes on different data folders (tests,
portable installs) never talk to each other, while two on the same data folder (which would
fight over one database) cannot both run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path

from app.settings.paths import AppPaths
from app.support.atomic import atomic_write_bytes

log = logging.getLogger(__name__)

ENV_RUNTIME_DIR = "CASHCODE_RUNTIME_DIR"
APP_NAME = "CashCode"
CONNECT_TIMEOUT_S = 2.0
_MESSAGE_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024  # 32 short arguments; anything bigger is not ours


class UnsafeRuntimeDir(OSError):
    """A runtime folder or key file another user could have made or can change."""


def check_private_dir(path: Path) -> None:
    """Refuse a folder that is a link, not ours, or open to group/others (POSIX)."""
    if os.name != "posix":
        return
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafeRuntimeDir(f"{path} is not a folder")
    if info.st_uid != os.getuid():
        raise UnsafeRuntimeDir(
            f"{path} belongs to another user (uid {info.st_uid}); remove it or set {ENV_RUNTIME_DIR}"
        )
    if info.st_mode & 0o077:
        raise UnsafeRuntimeDir(
            f"{path} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
            f"make it 0700 or set {ENV_RUNTIME_DIR}"
        )


def _read_key(path: Path) -> bytes:
    """The authkey, only from a regular owner-only file of ours (never through a link)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if os.name == "posix":
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                raise UnsafeRuntimeDir(f"{path} is not a private key file of this user")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(1024)
    finally:
        os.close(fd)


def _send_json(conn: Connection, value: dict[str, object]) -> None:
    conn.send_bytes(json.dumps(value).encode("utf-8"))


def _recv_json(conn: Connection) -> object:
    """One JSON message; anything else (oversized, not JSON) is None."""
    try:
        return json.loads(conn.recv_bytes(MAX_MESSAGE_BYTES).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def runtime_dir(env: Mapping[str, str]) -> Path:
    """The platform's per-user runtime folder (`CASHCODE_RUNTIME_DIR` overrides it), created
    private to the user. Falls back to a per-user folder under the temp dir when the platform
    one cannot be created (e.g. no /run/user/<uid> for root in a container), and then to one in
    the user's cache folder: anyone can make `<tmp>/cashcode-<uid>` first, and a squatted
    shared name must not keep the app from starting (issue 33.11)."""
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
    if not override:
        candidates.append(AppPaths.from_env(env).cache_dir / "run")  # inside the user's home
    problems: list[str] = []
    for candidate in candidates:
        try:
            candidate.mkdir(mode=0o700, parents=True, exist_ok=True)
            check_private_dir(candidate)
        except UnsafeRuntimeDir as exc:
            log.warning("runtime folder refused: %s", exc)
            problems.append(str(exc))
            continue
        except OSError as exc:
            log.debug("runtime dir %s unusable: %s", candidate, exc)
            problems.append(f"{candidate}: {exc.strerror or exc}")
            continue
        return candidate
    raise UnsafeRuntimeDir(f"no usable runtime folder ({'; '.join(problems)})")


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
            argv = _argv_of(_recv_json(conn))
            if argv is None:
                _send_json(conn, {"ok": False, "error": "malformed message"})
                return
            # Acknowledge first: the handler only queues work, but the caller's 1 s budget
            # should not depend on it.
            _send_json(conn, {"ok": True})
        except (OSError, EOFError) as exc:
            log.info("single-instance: the other launch went away: %s", exc)
            return
        try:
            self._on_message(argv)
        except Exception:  # a bad request must never stop the listener
            log.exception("single-instance: handling %r failed", argv)


def _argv_of(message: object) -> list[str] | None:
    if not isinstance(message, dict) or message.get("v") != _MESSAGE_VERSION:
        return None
    argv = message.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or len(argv) > 32:
        return None
    return list(argv)


def forward(endpoint: Endpoint, argv: list[str]) -> bool:
    """Hand `argv` to the running instance. False when nobody is listening (stale or absent)."""
    check_private_dir(endpoint.key_path.parent)  # raises UnsafeRuntimeDir
    try:
        key = _read_key(endpoint.key_path)
    except UnsafeRuntimeDir:
        raise
    except OSError:
        return False
    try:
        with Client(endpoint.address, family=endpoint.family, authkey=key) as conn:
            _send_json(conn, {"v": _MESSAGE_VERSION, "argv": argv})
            if not conn.poll(CONNECT_TIMEOUT_S):
                raise OSError("the running CashCode did not answer")
            reply = _recv_json(conn)
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

"""`<runtime dir>/serve.json`: how local scripts find a running server and its API token.

Written atomically with mode 0600 once the server listens, removed on exit. A file left by a
crashed process (its pid gone, or nothing listening on its port) is detected and replaced; a
file that belongs to another server that is still running is left alone (that server keeps
being the one scripts reach).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import stat
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from app.settings.paths import APP_NAME
from app.support.atomic import atomic_write_text

ENV_RUNTIME_DIR = "CASHCODE_RUNTIME_DIR"
FILE_NAME = "serve.json"
_PROBE_TIMEOUT_S = 0.5


def runtime_dir(env: Mapping[str, str]) -> Path:
    value = env.get(ENV_RUNTIME_DIR, "").strip()
    if value:
        return Path(value).expanduser().absolute()
    import platformdirs  # lazy: keeps CLI start-up light

    with warnings.catch_warnings():
        # Without XDG_RUNTIME_DIR platformdirs warns and falls back to /tmp/runtime-<uid>;
        # publish() checks that folder is really ours.
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class RuntimeInfo:
    url: str
    port: int
    token: str
    pid: int

    @classmethod
    def parse(cls, text: str) -> RuntimeInfo | None:
        try:
            raw = json.loads(text)
            info = cls(
                url=str(raw["url"]), port=int(raw["port"]), token=str(raw["token"]), pid=int(raw["pid"])
            )
        except (ValueError, KeyError, TypeError):
            return None
        return info


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate the process on Windows; the port probe decides
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=_PROBE_TIMEOUT_S):
            return True
    except OSError:
        return False


def is_live(info: RuntimeInfo) -> bool:
    """Both the process and its port are still there (a reused pid alone is not enough)."""
    return _pid_alive(info.pid) and 0 < info.port < 65536 and _listening(info.port)


def _check_private(directory: Path) -> None:
    """The folder must be ours and closed to others: in a shared place (platformdirs falls back
    to /tmp/runtime-<uid> without XDG_RUNTIME_DIR) someone else could have made it first and
    swap serve.json for one pointing scripts at their server."""
    if os.name != "posix":
        return
    info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(errno.EPERM, "the runtime folder is not owned by this user", str(directory))
    if info.st_mode & 0o077:
        os.chmod(directory, 0o700)


class RuntimeFile:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / FILE_NAME
        self._published: RuntimeInfo | None = None

    def read(self) -> RuntimeInfo | None:
        try:
            return RuntimeInfo.parse(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return None

    def publish(self, info: RuntimeInfo) -> bool:
        """Write the file unless another live server owns it. True when written."""
        current = self.read()
        if current is not None and current.pid != info.pid and is_live(current):
            return False
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        _check_private(self.directory)
        atomic_write_text(self.path, json.dumps(asdict(info)), mode=0o600)
        self._published = info
        return True

    def remove(self) -> None:
        """Remove the file if it is still ours (a newer server may have replaced it)."""
        if self._published is None:
            return
        current = self.read()
        if (
            current is not None
            and current.pid == self._published.pid
            and current.token == self._published.token
        ):
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self._published = None

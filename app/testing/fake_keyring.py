"""Keyring backends FOR TESTS ONLY. Never select them in a real installation.

- `MemoryKeyring`: secrets in a process-wide dict (lost at exit).
- `FileKeyring`: secrets in a **plaintext** JSON file named by `CASHCODE_TEST_KEYRING_FILE`,
  so a test and the subprocesses it starts share one keyring.

Both report priority 10 so `app.settings.secrets` classifies them as available. Select one
with `keyring.set_keyring(MemoryKeyring())` in-process, or for subprocesses with
`PYTHON_KEYRING_BACKEND=app.testing.fake_keyring.FileKeyring` plus
`CASHCODE_TEST_KEYRING_FILE=/tmp/.../keyring.json`.

Importing this module registers the classes with keyring's backend registry, so both set
`viable = False`: keyring's auto-selection never picks them by accident, while explicit
selection (`set_keyring`, `PYTHON_KEYRING_BACKEND`) still works. FileKeyring also reports
itself unusable (its priority raises) when the env variable is missing.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import ClassVar

from keyring.backend import KeyringBackend
from keyring.compat import properties
from keyring.errors import PasswordDeleteError

from app.support.atomic import atomic_write_text

ENV_FILE = "CASHCODE_TEST_KEYRING_FILE"


class MemoryKeyring(KeyringBackend):
    """In-process keyring; all instances share one store (like a real system keychain)."""

    viable = False  # never auto-selected (see module docstring)
    _store: ClassVar[dict[tuple[str, str], str]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @properties.classproperty
    def priority(cls) -> float:
        return 10

    def get_password(self, service: str, username: str) -> str | None:
        with self._lock:
            return self._store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        with self._lock:
            self._store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        with self._lock:
            if self._store.pop((service, username), None) is None:
                raise PasswordDeleteError("password not found")

    @classmethod
    def clear(cls) -> None:
        with cls._lock:
            cls._store.clear()


class FileKeyring(KeyringBackend):
    """Plaintext JSON keyring shared between processes through `CASHCODE_TEST_KEYRING_FILE`."""

    viable = False  # never auto-selected (see module docstring)

    @properties.classproperty
    def priority(cls) -> float:
        if not os.environ.get(ENV_FILE):
            raise RuntimeError(f"{ENV_FILE} is not set")
        return 10

    @staticmethod
    def _path() -> Path:
        value = os.environ.get(ENV_FILE)
        if not value:
            raise RuntimeError(f"FileKeyring needs {ENV_FILE} (test-only backend)")
        return Path(value)

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self._path().read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, str]]) -> None:
        path = self._path()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data))

    def get_password(self, service: str, username: str) -> str | None:
        return self._read().get(service, {}).get(username)

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._read()
        data.setdefault(service, {})[username] = password
        self._write(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._read()
        if data.get(service, {}).pop(username, None) is None:
            raise PasswordDeleteError("password not found")
        self._write(data)

"""Per-Skill locks: operations on one name are serialised, different names run in parallel."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class NameLocks:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            yield

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest

from app.testing.fake_keyring import MemoryKeyring


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """keyring's process-wide backend set to a fresh MemoryKeyring, restored afterwards."""
    previous = keyring.get_keyring()
    MemoryKeyring.clear()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    MemoryKeyring.clear()
    keyring.set_keyring(previous)

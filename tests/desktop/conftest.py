from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.desktop.core_loop import CoreLoop


@pytest.fixture
def core() -> Iterator[CoreLoop]:
    loop = CoreLoop(name="test-core")
    loop.start()
    yield loop
    assert loop.stop()

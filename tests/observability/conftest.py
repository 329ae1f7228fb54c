"""Reuse the API fixtures: a real app on temp dirs, a memory keyring, the fake LLM server."""

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace
from tests.server.conftest import static_dir

__all__ = ["fake_llm", "make_app", "paths", "secrets", "static_dir", "workspace"]


import io
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.observability.logs import LOG_FILE, setup_logging


@dataclass
class CapturedLogs:
    file: Path
    stderr: io.StringIO

    def lines(self) -> list[str]:
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = self.file.read_text(encoding="utf-8") if self.file.exists() else ""
        return text.splitlines() + self.stderr.getvalue().splitlines()


@pytest.fixture
def captured_logs(tmp_path: Path) -> Iterator[CapturedLogs]:
    """The real logging set-up at DEBUG into a temp folder; the root logger is restored after."""
    root = logging.getLogger()
    saved = (root.level, list(root.handlers))
    stderr = io.StringIO()
    setup_logging(tmp_path / "logs", "DEBUG", stderr=stderr)
    yield CapturedLogs(tmp_path / "logs" / LOG_FILE, stderr)
    for handler in list(root.handlers):
        if getattr(handler, "_cashcode", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(saved[0])

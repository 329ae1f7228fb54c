"""Shared fixtures for tool tests: a real workspace on disk and an in-memory grant ledger."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.contracts.tools import Grant, GrantKey, ToolContext


@dataclass
class MemoryLedger:
    """In-memory ApprovalLedger for unit tests (the real one is SQLite-backed in app/store)."""

    grants: list[Grant] = field(default_factory=list)

    def has(self, key: GrantKey) -> bool:
        return any((g.kind, g.key, g.workspace) == (key.kind, key.key, key.workspace) for g in self.grants)

    def add(self, key: GrantKey, *, chat_id: str | None = None) -> Grant:
        grant = Grant(
            id=uuid.uuid4().hex,
            kind=key.kind,
            key=key.key,
            workspace=key.workspace,
            created_at=datetime.now(UTC).isoformat(),
            chat_id=chat_id,
        )
        self.grants.append(grant)
        return grant

    def list(self) -> list[Grant]:
        return list(self.grants)

    def revoke(self, grant_id: str) -> bool:
        before = len(self.grants)
        self.grants = [g for g in self.grants if g.id != grant_id]
        return len(self.grants) != before


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Path(os.path.realpath(ws))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.txt").write_text("top secret\n")
    return Path(os.path.realpath(out))


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace, chat_id="c1", turn_id="t1")


@pytest.fixture
def ledger() -> MemoryLedger:
    return MemoryLedger()

"""Shared fixtures for tool tests: a real workspace on disk and an in-memory grant ledger."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.contracts.tools import Grant, GrantKey, ToolContext


@dataclass
class MemoryLedger:
    """In-memory ApprovalLedger for unit tests (the real one is SQLite-backed in app/store)."""

    grants: list[Grant] = field(default_factory=list)

    def find(self, key: GrantKey) -> Grant | None:
        wanted = (key.kind, key.key, key.workspace)
        return next((g for g in self.grants if (g.kind, g.key, g.workspace) == wanted), None)

    def has(self, key: GrantKey) -> bool:
        found = self.find(key)
        return found is not None and found.enabled

    def add(self, key: GrantKey, *, chat_id: str | None = None, enabled: bool = True) -> Grant:
        grant = Grant(
            id=uuid.uuid4().hex,
            kind=key.kind,
            key=key.key,
            workspace=key.workspace,
            created_at=datetime.now(UTC).isoformat(),
            chat_id=chat_id,
            enabled=enabled,
        )
        self.grants.append(grant)
        return grant

    def enable(self, grant_id: str) -> bool:
        found = next((g for g in self.grants if g.id == grant_id), None)
        if found is None:
            return False
        self.grants = [replace(g, enabled=True) if g.id == grant_id else g for g in self.grants]
        return True

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

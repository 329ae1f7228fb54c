"""Fixtures for the hostile-workspace tests: reuse the tool-test workspace and ledger."""

from tests.tools.conftest import MemoryLedger, ctx, ledger, outside, workspace

__all__ = ["MemoryLedger", "ctx", "ledger", "outside", "workspace"]

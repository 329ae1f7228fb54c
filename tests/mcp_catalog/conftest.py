"""MCP catalog tests use the API rig (real app on temp dirs, memory keyring, scripted LLM)."""

from __future__ import annotations

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

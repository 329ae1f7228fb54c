"""Inbox tests: the real app on temp dirs with the scripted LLM (tests/api/conftest.py)."""

from __future__ import annotations

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

"""Memory tests use the API rig (a real app on temp dirs and the scripted LLM server)."""

from __future__ import annotations

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

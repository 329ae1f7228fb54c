"""Reuse the API fixtures: a real app on temp dirs, a memory keyring, the fake LLM server."""

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

"""The API rig (a real app on temp folders, the scripted LLM over HTTP) for the agents tests."""

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

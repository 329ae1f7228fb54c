"""The API test rig (real app on temp dirs, memory keyring, fake LLM server over HTTP)."""

from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace  # noqa: F401

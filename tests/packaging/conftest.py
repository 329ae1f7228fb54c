"""Fixtures for the installed-package smoke tests: the e2e suite's fake LLM server and Xvfb."""

from tests.e2e.conftest import fake_llm, fresh_llm, xvfb_display  # noqa: F401  (pytest fixtures)

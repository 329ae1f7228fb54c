"""Fixtures for the installed-package smoke tests: the e2e suite's fake LLM server and Xvfb, and
the .deb unpacked into a clean root (once per module; skips, saying how to build, without one)."""

from __future__ import annotations

import shutil

import pytest

from tests.e2e.conftest import fake_llm, fresh_llm, xvfb_display  # noqa: F401  (pytest fixtures)
from tests.packaging import artifacts
from tests.packaging.installed import Installed, unpack_deb


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    deb = artifacts.deb()
    if deb is None:
        pytest.skip(artifacts.HOW_TO_BUILD)
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb missing (apt-get install dpkg)")
    return unpack_deb(deb, tmp_path_factory.mktemp("root"))

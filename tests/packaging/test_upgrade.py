"""Upgrades keep user data: install an older package with dpkg into a private root, make a chat
and a provider with it, install the new package over it, and find both again. The user's data
and settings live in the user's folders (here a private HOME), never in /opt/cashcode."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import FakeLLMProcess
from tests.packaging import artifacts
from tests.packaging.installed import (
    Installed,
    dpkg_install,
    empty_dpkg_root,
    file_listing,
    installed_version,
    run_cli,
    seed_provider,
)

pytestmark = [
    pytest.mark.skipif(artifacts.deb() is None, reason=artifacts.HOW_TO_BUILD),
    pytest.mark.skipif(shutil.which("dpkg") is None or shutil.which("dpkg-deb") is None,
                       reason="dpkg missing (a Debian-like system is needed)"),
    pytest.mark.timeout(900),
]
OLD_VERSION = "0.0.1~smoke"


def older_package(new_deb: Path, work: Path) -> Path:
    """The same program as an older version: what matters is dpkg replacing one with the other."""
    tree = work / "old-tree"
    subprocess.run(["dpkg-deb", "-R", str(new_deb), str(tree)], check=True, timeout=600)
    control = tree / "DEBIAN" / "control"
    text = control.read_text(encoding="utf-8")
    control.write_text(text.replace(f"Version: {artifacts.VERSION}\n", f"Version: {OLD_VERSION}\n"),
                       encoding="utf-8")
    (tree / "opt" / "cashcode" / "old-only-file").write_text("removed by the upgrade\n", encoding="utf-8")
    old = work / "cashcode_old.deb"
    # No compression: this package only lives for the test.
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "--build", str(tree), str(old)],
                   check=True, timeout=600, capture_output=True)
    shutil.rmtree(tree)
    return old


def test_installing_the_new_package_over_the_old_keeps_chats_and_providers(
    tmp_path: Path, fresh_llm: FakeLLMProcess
) -> None:
    new_deb = artifacts.deb()
    assert new_deb is not None
    root = empty_dpkg_root(tmp_path / "root")
    dpkg_install(root, older_package(new_deb, tmp_path))
    assert installed_version(root) == OLD_VERSION
    installed = Installed(root)

    # Default folders (no CASHCODE_* overrides): everything the user makes goes under HOME.
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    seed_provider(env, fresh_llm.openai_base_url, workspace)
    program_files = file_listing(installed.program)
    fresh_llm.script({"text": "Remember the upgrade."})
    asked = run_cli(installed.cli, ["ask", "--provider", "Fake LLM", "--model", "fake-model",
                                    "--workspace", str(workspace), "Keep this chat"], env, tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert "Remember the upgrade." in asked.stdout
    assert file_listing(installed.program) == program_files  # the old program wrote nothing there

    dpkg_install(root, new_deb)
    assert installed_version(root) == artifacts.VERSION
    assert not (installed.program / "old-only-file").exists()  # the program was replaced

    chats = run_cli(installed.cli, ["sessions", "list"], env, tmp_path)
    assert chats.returncode == 0, chats.stderr
    assert "Keep this chat" in chats.stdout
    config = run_cli(installed.cli, ["config", "show"], env, tmp_path)
    assert f"base_url: {fresh_llm.openai_base_url}" in config.stdout, config.stdout
    fresh_llm.script({"text": "Still here."})
    again = run_cli(installed.cli, ["ask", "--provider", "Fake LLM", "--model", "fake-model",
                                    "--workspace", str(workspace), "Are you there"], env, tmp_path)
    assert again.returncode == 0 and "Still here." in again.stdout, again.stderr  # found by name
    assert [p.relative_to(home).parts[0] for p in home.rglob("settings.json")] == [".config"]

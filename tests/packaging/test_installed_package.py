"""Smoke test of the built Linux packages (`python build.py package --smoke`): the .deb unpacked
into a clean root and the AppImage each start the real window under Xvfb against the scripted
LLM server, stream an answer through the UI and quit leaving no process; the installed CLI
imports a Skill ZIP. Skips, saying how to build, when no package was built."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.desktop.harness import DesktopProcess, launch
from tests.e2e.conftest import FakeLLMProcess
from tests.packaging import artifacts
from tests.packaging.installed import (
    Installed,
    file_listing,
    private_env,
    run_cli,
    seed_provider,
)
from tests.skills.helpers import write_skill, zip_folder

pytestmark = [pytest.mark.timeout(600)]
WAIT_MS = 60_000  # the frozen app's first start unpacks nothing, but CI's cores are busy


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return private_env(tmp_path / "cashcode")


def test_the_package_puts_the_program_under_opt_and_the_command_on_path(installed: Installed) -> None:
    assert installed.cli.is_symlink() and os.readlink(installed.cli) == "../../opt/cashcode/cashcode"
    assert installed.cli.resolve() == (installed.program / "cashcode").resolve()
    share = installed.root / "usr" / "share"
    assert (share / "applications" / "cashcode.desktop").is_file()
    opener = (share / "applications" / "cashcode-import-skill.desktop").read_text(encoding="utf-8")
    assert "MimeType=application/zip;" in opener
    for size in artifacts.linux_pkg.ICON_SIZES:
        assert (share / f"icons/hicolor/{size}x{size}/apps/cashcode.png").is_file()


def test_the_installed_command_reports_the_project_version(installed: Installed, env: dict[str, str],
                                                           tmp_path: Path) -> None:
    result = run_cli(installed.cli, ["--version"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"cashcode {artifacts.VERSION}"


def test_the_installed_cli_imports_a_skill_zip(
    installed: Installed, env: dict[str, str], tmp_path: Path
) -> None:
    archive = zip_folder(write_skill(tmp_path / "src", "packaged-skill"), tmp_path / "s.zip",
                         prefix="packaged-skill")
    before = file_listing(installed.program)
    imported = run_cli(installed.cli, ["skills", "import", str(archive)], env, tmp_path)
    assert imported.returncode == 0, imported.stderr
    listed = run_cli(installed.cli, ["skills", "list"], env, tmp_path)
    assert "packaged-skill" in listed.stdout and "cashcode-skill-creator" in listed.stdout
    assert (tmp_path / "cashcode" / "data").is_dir()
    assert file_listing(installed.program) == before  # nothing is written into the install folder


def _stream_an_answer(app: DesktopProcess, llm: FakeLLMProcess) -> None:
    with sync_playwright() as pw:
        page: Page = app.attach(pw, timeout_s=WAIT_MS / 1000)
        page.set_default_timeout(WAIT_MS)
        expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=WAIT_MS)
        answer = "The installed app streams this answer."
        llm.script({"text": answer, "chunk_size": 3, "delay_s": 0.02})
        page.get_by_test_id("composer-input").fill("Hello from the package")
        page.get_by_test_id("send-button").click()
        reply = page.get_by_test_id("message-assistant").last
        expect(reply).to_have_attribute("data-state", "done", timeout=WAIT_MS)
        expect(reply).to_contain_text(answer)
        assert page.title() == "CashCode"


def _run_window(argv: list[str], env: dict[str, str], display: str, llm: FakeLLMProcess,
                workspace: Path) -> None:
    seed_provider(env, llm.openai_base_url, workspace)
    app = launch(argv, env, display)
    try:
        _stream_an_answer(app, llm)
        assert app.close_window(timeout_s=60) == 0, app.tail()
        assert app.leftovers(timeout_s=30) == [], app.tail()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "workspace"
    path.mkdir()
    yield path


@pytest.mark.desktop
def test_the_installed_app_opens_its_window_and_streams_an_answer(
    installed: Installed, env: dict[str, str], xvfb_display: str, fresh_llm: FakeLLMProcess, workspace: Path
) -> None:
    _run_window([str(installed.cli)], env, xvfb_display, fresh_llm, workspace)


@pytest.mark.desktop
@pytest.mark.skipif(artifacts.appimage() is None, reason=artifacts.HOW_TO_BUILD)
def test_the_appimage_opens_its_window_and_streams_an_answer(
    env: dict[str, str], xvfb_display: str, fresh_llm: FakeLLMProcess, workspace: Path
) -> None:
    image = artifacts.appimage()
    assert image is not None
    if not os.path.exists("/dev/fuse"):
        env["APPIMAGE_EXTRACT_AND_RUN"] = "1"  # no FUSE here (containers): the runtime unpacks
    _run_window([str(image)], env, xvfb_display, fresh_llm, workspace)


def test_the_installed_serve_command_serves_the_ui(installed: Installed, env: dict[str, str],
                                                   tmp_path: Path) -> None:
    import http.cookiejar
    import re
    import subprocess
    import time
    import urllib.request

    proc = subprocess.Popen([str(installed.cli), "serve", "--port", "0", "--no-open"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        deadline, url = time.monotonic() + 120, None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
            url = found.group(0) if found else None
        assert url is not None, "serve printed no address"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(url, timeout=60) as resp:
            page = resp.read().decode("utf-8")
        assert resp.status == 200 and "<title>CashCode</title>" in page
    finally:
        proc.terminate()
        assert proc.wait(60) is not None

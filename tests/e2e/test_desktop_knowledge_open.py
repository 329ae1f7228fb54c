"""Issues 26 and 41 in the REAL desktop window under Xvfb: a knowledge-base citation in an answer
opens the in-app source panel at the cited lines; "Open in editor" then hands the file to the
system's opener, and the opener's failure is shown. Everything is real (window, bridge,
`desktop.open_path`, `knowledge.locate`, the index) except the OS boundary: `xdg-open` on PATH is
a stub program that records its arguments (and exits 3, as xdg-open does when no application is
found, while a marker file exists). A path outside every knowledge base is refused and opens
nothing."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import DesktopProcess, desktop_command, invoke, launch, wait_until
from tests.e2e.conftest import FakeLLMProcess

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(240),
]

WAIT_MS = 30_000


@pytest.fixture
def opened_log(tmp_path: Path) -> Path:
    return tmp_path / "opened.txt"


@pytest.fixture
def window_app(
    xvfb_display: str, seeded_env: dict[str, str], tmp_path: Path, opened_log: Path
) -> Iterator[DesktopProcess]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "xdg-open"
    fail_marker = opened_log.with_suffix(".fail")
    script = f'#!/bin/sh\n[ -e "{fail_marker}" ] && exit 3\nprintf "%s\\n" "$@" >> "{opened_log}"\n'
    stub.write_text(script, encoding="utf-8")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    env = {**seeded_env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    app = launch(desktop_command(), env, xvfb_display)
    try:
        yield app
    finally:
        if app.proc.poll() is None:
            app.close_window()


def test_a_citation_opens_the_panel_at_its_lines_then_the_editor(
    window_app: DesktopProcess, fresh_llm: FakeLLMProcess, tmp_path: Path, opened_log: Path
) -> None:
    kb = (tmp_path / "kb").resolve()
    (kb / "notes").mkdir(parents=True)
    note = kb / "notes" / "a.md"
    note.write_text("# Pantry\n\n## Jam\n\nQuince jam keeps for a year.\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("not in a base\n", encoding="utf-8")
    with sync_playwright() as pw:
        page = window_app.attach(pw)
        page.set_default_timeout(WAIT_MS)
        expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=WAIT_MS)
        added = invoke(page, "knowledge.add", {"path": str(kb), "name": "Pantry"})
        assert added["ok"], added

        fresh_llm.script(
            {"tool_calls": [{"name": "knowledge_search", "arguments": {"query": "quince jam"}}]},
            {"text": "It keeps for a year (notes/a.md:3-5)."},
        )
        page.get_by_test_id("composer-input").fill("How long does quince jam keep?")
        page.get_by_test_id("send-button").click()
        answer = page.get_by_test_id("message-assistant").last
        expect(answer).to_have_attribute("data-state", "done", timeout=WAIT_MS)
        link = answer.locator("a.kb-cite")
        expect(link).to_have_text("notes/a.md:3-5", timeout=WAIT_MS)
        link.click()
        viewer = page.get_by_test_id("kb-viewer")
        expect(viewer).to_be_visible()
        expect(viewer.locator("[data-cited]")).to_have_count(3)
        cited = viewer.locator("[data-cited]").evaluate_all("rows => rows.map(r => r.dataset.line)")
        assert cited == ["3", "4", "5"]
        assert "Quince jam" in viewer.locator('[data-line="5"]').inner_text()
        assert not opened_log.exists()  # the click alone hands nothing to the system

        viewer.get_by_test_id("kb-viewer-open-file").click()
        wait_until(lambda: opened_log.exists() and opened_log.read_text(encoding="utf-8"), timeout_s=20)
        assert opened_log.read_text(encoding="utf-8").splitlines() == [str(note)]
        expect(viewer.get_by_test_id("kb-viewer-open-error")).to_have_count(0)

        fail_marker = opened_log.with_suffix(".fail")
        fail_marker.write_text("", encoding="utf-8")
        viewer.get_by_test_id("kb-viewer-open-file").click()
        expect(viewer.get_by_test_id("kb-viewer-open-error")).to_contain_text("exited with status 3")
        fail_marker.unlink()

        refused = invoke(page, "desktop.open_path", {"path": str(tmp_path / "outside.md")})
        assert not refused["ok"] and refused["error"]["code"] == "not_found"
        refused = invoke(page, "desktop.open_path", {"path": f"{kb}/../outside.md"})
        assert not refused["ok"] and refused["error"]["code"] == "not_found"
        folder = invoke(page, "desktop.open_path", {"path": str(note), "folder": True})
        assert folder["ok"], folder
        wait_until(lambda: len(opened_log.read_text(encoding="utf-8").splitlines()) == 2, timeout_s=20)
        assert opened_log.read_text(encoding="utf-8").splitlines() == [str(note), str(kb / "notes")]

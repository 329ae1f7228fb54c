"""Issue 27 in the REAL desktop window under Xvfb: the rich answer's math and diagram render
(screenshots checked by non-blank regions, not pixels), the HTML artifact runs in its sandbox
with no bridge, served from pywebview's loopback server with its own policy, and the side panel
shows it larger and saves it as a file (the window cannot download: the backend writes it into
Downloads, here a temp dir through CASHCODE_EXPORT_DIR)."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Playwright, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import ROOT, DesktopProcess
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.rich_answer import ARTIFACT_REPORT, artifact_html, recording_server, rich_answer

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]

WAIT_MS = 30_000
SCREENSHOTS = ROOT / "artifacts"

# Distinct colours of a PNG on a 4 px grid, counted by the page itself (a canvas reads it back).
COUNT_COLOURS = """async (b64) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let y = 0; y < c.height; y += 4) for (let x = 0; x < c.width; x += 4) {
    const i = (y * c.width + x) * 4;
    seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  return { colours: seen.size, width: c.width, height: c.height };
}"""


@pytest.fixture
def export_dir(tmp_path: Path) -> Path:
    path = tmp_path / "Downloads"
    path.mkdir()
    return path


@pytest.fixture
def seeded_env(seeded_env: dict[str, str], export_dir: Path) -> dict[str, str]:
    """The shared seeded app, saving files into `export_dir` instead of the user's Downloads."""
    return {**seeded_env, "CASHCODE_EXPORT_DIR": str(export_dir)}


@pytest.fixture
def window(desktop_app: DesktopProcess) -> Iterator[Page]:
    with sync_playwright() as pw:
        page = attach(desktop_app, pw)
        yield page


def attach(desktop_app: DesktopProcess, pw: Playwright) -> Page:
    page = desktop_app.attach(pw)
    page.set_default_timeout(WAIT_MS)
    expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=WAIT_MS)
    return page


def non_blank(page: Page, region: Locator, name: str) -> dict[str, int]:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    png = region.screenshot(path=str(SCREENSHOTS / f"desktop-rich-{name}.png"))
    result: dict[str, int] = page.evaluate(COUNT_COLOURS, base64.b64encode(png).decode("ascii"))
    return result


def test_the_window_renders_math_and_the_diagram_and_sandboxes_the_artifact(
    window: Page, fresh_llm: FakeLLMProcess, export_dir: Path
) -> None:
    with recording_server() as leaks:
        fresh_llm.script({"text": rich_answer(leaks.url)})
        window.get_by_test_id("composer-input").fill("Show me everything")
        window.get_by_test_id("send-button").click()
        answer = window.get_by_test_id("message-assistant").last
        expect(answer).to_have_attribute("data-state", "done", timeout=WAIT_MS)

        display = answer.locator(".math-display .katex").first
        expect(display).to_be_visible(timeout=WAIT_MS)
        expect(answer.locator(".math-inline .katex")).to_have_count(2)
        diagram = answer.locator(".diagram-block").first.locator(".diagram-view svg")
        expect(diagram).to_be_visible(timeout=WAIT_MS)

        math_shot = non_blank(window, display, "math")
        diagram_shot = non_blank(window, diagram, "diagram")
        # Glyphs are anti-aliased: real text and shapes give many shades, a blank box one or two.
        assert math_shot["colours"] > 8, math_shot
        assert diagram_shot["colours"] > 8, diagram_shot
        assert diagram_shot["width"] > 100 and diagram_shot["height"] > 20, diagram_shot

        artifact = answer.locator(".artifact-block").first
        artifact.locator(".artifact-preview").click()
        expect(artifact.locator("iframe.artifact-frame")).to_have_attribute("sandbox", "allow-scripts")
        frame = artifact.frame_locator("iframe.artifact-frame")
        expect(frame.locator("#marker")).to_have_text("ARTIFACT-RAN", timeout=WAIT_MS)
        expect(frame.locator("#report")).to_have_text(ARTIFACT_REPORT)
        assert window.evaluate("() => document.body.dataset.pwned ?? null") is None
        assert leaks.paths == []

        # The side panel: the same sandbox, larger; "Save as file" writes the artifact's source.
        artifact.locator(".artifact-open").click()
        panel = window.get_by_test_id("artifact-panel")
        expect(panel.locator("iframe")).to_have_attribute("sandbox", "allow-scripts")
        panel_frame = panel.frame_locator("iframe")
        expect(panel_frame.locator("#marker")).to_have_text("ARTIFACT-RAN", timeout=WAIT_MS)
        expect(panel_frame.locator("#report")).to_have_text(ARTIFACT_REPORT)
        panel_shot = non_blank(window, panel.locator("iframe"), "panel")
        assert panel_shot["colours"] > 8 and panel_shot["width"] > 200, panel_shot
        assert list(export_dir.iterdir()) == []
        panel.get_by_role("button", name="Save as file").click()
        saved = export_dir / "artifact.html"
        expect(panel.get_by_role("status")).to_contain_text(str(saved), timeout=WAIT_MS)
        assert saved.read_text(encoding="utf-8").rstrip("\n") == artifact_html(leaks.url)
        assert [p.name for p in export_dir.iterdir()] == ["artifact.html"]
        panel.get_by_role("button", name="Close").click()
        expect(panel).to_have_count(0)
        assert window.evaluate("() => document.body.dataset.pwned ?? null") is None
        assert leaks.paths == []

"""MCP Bundles in real Chromium against `cashcode serve`: Market's "Install bundle…" uploads a
bundle packed by the real mcpb CLI, the preview shows what it is and exactly what it will run
with its user_config as a form (the sensitive field a password input), Install makes it one of
the user's servers; a .mcpb dropped on the chat area opens the same preview instead of being
attached, and a hostile one is refused with its reason."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.test_browser_attachments import save_provider
from tests.mcp_catalog import bundle_kit as kit
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]
TOKEN = "browser-Secret-777"

DROP_JS = """([name, b64, selector]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type: "application/octet-stream" }));
  const target = document.querySelector(selector) || document.body;
  for (const kind of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(kind, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }
}"""


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    cli = kit.mcpb_cli()
    work = tmp_path_factory.mktemp("bundles")
    return {
        "python": kit.python_bundle(cli, work),
        "node": kit.node_bundle(cli, work),
        "evil": kit.traversal_bundle(work / "evil-kit.mcpb"),
    }


@pytest.fixture
def serve_env(app_env: dict[str, str], workspace: Path) -> Iterator[dict[str, str]]:
    env = {**os.environ, **app_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    env["CASHCODE_MCP_TEST_SERVERS"] = ""  # the user's Market: no built-in test servers
    env["CASHCODE_MCP_DOWNLOAD_CACHE"] = str(REPO / ".cache" / "test-deps" / "mcp-downloads")
    yield env


def test_install_bundle_uploads_previews_and_installs_with_its_settings(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    packed: dict[str, Path],
    tmp_path: Path,
) -> None:
    page, problems, _ = browser_page
    root = tmp_path / "root"
    root.mkdir()
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-mcp").click()
    expect(page.get_by_test_id("mcp-bundle-install")).to_have_text("Install bundle…")
    page.get_by_test_id("mcp-bundle-file").set_input_files(str(packed["python"]))

    preview = page.get_by_test_id("bundle-preview")
    expect(page.get_by_test_id("bundle-preview-name")).to_contain_text("Shout Kit")
    expect(page.get_by_test_id("bundle-preview-name")).to_contain_text("0.4.1")
    expect(page.get_by_test_id("bundle-preview-author")).to_contain_text("Test Author")
    expect(page.get_by_test_id("bundle-preview-tools")).to_contain_text("shout")
    expect(page.get_by_test_id("bundle-preview-argv")).to_contain_text("/venv/bin/python")
    expect(page.get_by_test_id("bundle-preview-argv")).to_contain_text("shout-kit/server/main.py")
    expect(page.get_by_test_id("bundle-preview-env")).to_contain_text("SHOUT_TOKEN=********")
    expect(page.get_by_test_id("bundle-preview-commands")).to_contain_text("unpack shout-kit.mcpb into")
    expect(page.get_by_test_id("bundle-preview-input-problem")).to_contain_text("token")
    token = page.get_by_test_id("bundle-input-token")
    expect(token).to_have_attribute("type", "password")
    expect(page.get_by_test_id("bundle-input-loud")).to_be_checked()
    expect(page.get_by_test_id("bundle-pick-root")).to_have_count(0)  # the browser types paths
    token.fill(TOKEN)
    # The launch line and the warnings follow what is typed (issue 41): an upload, no blur.
    gone = tmp_path / "gone"
    page.get_by_test_id("bundle-input-root").fill(str(gone))
    argv = page.get_by_test_id("bundle-preview-argv")
    expect(argv).to_contain_text(f"--root {gone}")
    expect(page.get_by_test_id("bundle-preview-input-problem")).to_have_text(
        f"the folder '{gone}' of 'root' does not exist"
    )
    page.get_by_test_id("bundle-input-root").fill(str(root))
    expect(argv).to_contain_text(f"--root {root}")
    expect(page.get_by_test_id("bundle-preview-input-problem")).to_have_count(0)
    page.get_by_test_id("bundle-preview-install").click()
    expect(page.get_by_test_id("bundle-preview-done")).to_contain_text("shout-kit", timeout=300_000)
    page.get_by_test_id("bundle-preview-cancel").click()
    expect(preview).to_have_count(0)
    row = page.locator('[data-testid="mcp-row"][data-name="shout-kit"]')
    expect(row).to_contain_text(f"--root {root}")
    assert TOKEN not in page.content()
    assert problems.messages == []


def test_a_bundle_dropped_on_the_chat_opens_the_preview_and_a_hostile_one_is_refused(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    packed: dict[str, Path],
) -> None:
    page, _, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    # A provider, so there is a chat to drop on (no model is ever called here).
    save_provider(page, "Fake", "chat_completions", "http://127.0.0.1:9/v1")
    page.get_by_test_id("nav-chat").click()
    chat = "[data-dropzone='chat']"
    expect(page.locator(chat)).to_be_visible()
    node = base64.b64encode(packed["node"].read_bytes()).decode()
    page.evaluate(DROP_JS, ["greet-kit.mcpb", node, "[data-testid='composer']"])
    expect(page.get_by_test_id("bundle-preview-name")).to_contain_text("greet-kit")
    expect(page.get_by_test_id("bundle-preview-argv")).to_contain_text("greet-kit/server/index.js Hello 1")
    expect(page.get_by_test_id("bundle-input-key")).to_have_attribute("type", "password")
    expect(page.get_by_test_id("bundle-input-times")).to_have_attribute("type", "number")
    expect(page.get_by_test_id("attachment-chip")).to_have_count(0)  # a bundle never attaches
    page.get_by_test_id("bundle-preview-cancel").click()
    expect(page.get_by_test_id("bundle-preview")).to_have_count(0)

    evil = base64.b64encode(packed["evil"].read_bytes()).decode()
    page.evaluate(DROP_JS, ["evil-kit.mcpb", evil, chat])
    expect(page.get_by_test_id("bundle-preview-error")).to_contain_text("the bundle is refused")
    expect(page.get_by_test_id("bundle-preview-error")).to_contain_text("tries to leave the bundle folder")
    expect(page.get_by_test_id("bundle-preview-install")).to_be_disabled()

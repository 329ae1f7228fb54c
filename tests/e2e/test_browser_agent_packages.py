"""Agent packages in the Agents view, in real Chromium against `cashcode serve` (issue 38 item
3): Import by button shows the capability preview and asks for the secret input; Export
downloads a `.cashagent` without the secret; a dropped version 2 previews only what changed,
and Cancel leaves version 1."""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.agents.test_agent_packages_serve import _files, _manifest, _zip
from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems, open_view
from tests.e2e.test_browser_chat import open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

BYE = b"print('bye')\n"


def _v2(path: Path) -> Path:
    manifest = _manifest()
    manifest["version"] = 2
    manifest["skills"][0]["files"].append(
        {"path": "scripts/bye.py", "sha256": hashlib.sha256(BYE).hexdigest(), "size": len(BYE)}
    )
    return _zip(path, manifest, {**_files(), "skills/greeter/scripts/bye.py": BYE})


def test_import_preview_install_export_and_a_dropped_update(
    served_ui: ServeProcess, browser_page: tuple[Page, PageProblems, EventFrames], tmp_path: Path
) -> None:
    page, _, _ = browser_page
    open_ui(page, served_ui)
    open_view(page, "agents")
    items = page.get_by_test_id("agents-item")
    expect(items).to_have_count(1)

    good = _zip(tmp_path / "greeter.cashagent", _manifest(), _files())
    page.get_by_test_id("agents-import-file").set_input_files(str(good))
    preview = page.get_by_test_id("agent-package-preview")
    expect(preview).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(preview).to_contain_text("scripts/hello.py")
    expect(preview).to_contain_text("MCP server echo: /usr/bin/python3 server.py")
    expect(preview).to_contain_text("morning: daily 09:00")
    expect(items).to_have_count(1)  # nothing written before Install
    page.get_by_test_id("agent-package-secret-API_TOKEN").fill("tok-browser")
    page.get_by_test_id("agent-package-install").click()
    expect(page.get_by_test_id("agents-notice")).to_contain_text("Greeter (version 1)", timeout=UI_TIMEOUT_MS)
    expect(items).to_have_count(2)

    greeter = items.filter(has_text="Greeter")
    with page.expect_download() as download:
        greeter.get_by_test_id("agents-export").click()
    saved = tmp_path / "out.cashagent"
    download.value.save_as(saved)
    assert download.value.suggested_filename == "greeter-agent-1.cashagent"
    with zipfile.ZipFile(saved) as z:
        assert json.loads(z.read("manifest.json"))["mcp_servers"][0]["secret_env"] == ["API_TOKEN"]
    assert b"tok-browser" not in saved.read_bytes()

    data = base64.b64encode(_v2(tmp_path / "v2.cashagent").read_bytes()).decode()
    page.evaluate(
        """(data) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], "greeter-2.cashagent"));
            const view = document.querySelector('[data-testid="agents-view"]');
            view.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        }""",
        data,
    )
    expect(preview).to_contain_text("Version 1 is installed", timeout=UI_TIMEOUT_MS)
    listed = page.get_by_test_id("agent-package-item")
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text("scripts/bye.py")
    page.get_by_test_id("agent-package-cancel").click()
    expect(preview).to_have_count(0)

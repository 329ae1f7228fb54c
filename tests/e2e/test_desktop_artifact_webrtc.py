"""Issue 33 item 3 in the REAL desktop window under Xvfb (Qt WebEngine): an artifact opens
RTCPeerConnections (in its page, a srcdoc frame and a javascript: frame) to ICE servers at a
loopback listener the test runs, with its address in the TURN user name. Before the fix the
listener got STUN/TURN packets; now nothing reaches it, in the answer's preview and in the side
panel, and the app page itself has no WebRTC either (app/desktop/webrtc_off.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import DesktopProcess
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.webrtc_probe import packet_listener, probe_listener, webrtc_answer

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]

WAIT_MS = 30_000
LISTEN_MS = 4000


@pytest.fixture
def window(desktop_app: DesktopProcess) -> Iterator[Page]:
    with sync_playwright() as pw:
        yield desktop_app.ready_page(pw, WAIT_MS)


def test_an_artifact_in_the_window_reaches_nothing_through_webrtc(
    window: Page, fresh_llm: FakeLLMProcess
) -> None:
    with packet_listener() as listener:
        fresh_llm.script({"text": webrtc_answer(listener.port)})
        window.get_by_test_id("composer-input").fill("Make me a page")
        window.get_by_test_id("send-button").click()
        answer = window.get_by_test_id("message-assistant").last
        expect(answer).to_have_attribute("data-state", "done")

        artifact = answer.locator(".artifact-block").first
        artifact.locator(".artifact-preview").click()
        frame = artifact.frame_locator("iframe.artifact-frame")
        expect(frame.locator("#where")).not_to_have_text("waiting")
        # Nothing reached the listener (before the fix: STUN/TURN packets within a second).
        window.wait_for_timeout(LISTEN_MS)
        assert listener.packets == []
        assert urlsplit(frame.locator("#where").inner_text()).path == "/artifact.html"
        expect(frame.locator("#webrtc")).to_have_text("refused: TypeError")
        expect(frame.locator("iframe")).to_have_count(0)

        artifact.locator(".artifact-open").click()
        panel_frame = window.get_by_test_id("artifact-panel").frame_locator("iframe")
        expect(panel_frame.locator("#webrtc")).to_have_text("refused: TypeError")

        # The window's own rule, independent of the artifact page: no WebRTC in the app's page.
        assert window.evaluate("() => typeof RTCPeerConnection") == "undefined"

        probe_listener(listener)
        window.wait_for_timeout(300)
        assert listener.packets == [b"udp:control"]

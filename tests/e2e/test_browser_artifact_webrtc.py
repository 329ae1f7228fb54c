"""Issue 33 item 3 over `cashcode serve` in real Chromium: an artifact opens RTCPeerConnections
(in its page, a srcdoc frame and a javascript: frame) to ICE servers at a loopback listener the
test runs, with its own address in the TURN user name. A CSP does not govern WebRTC: before the
fix the listener got STUN/TURN packets carrying the UI's secret prefix. Now nothing reaches it,
and the artifact's address holds no prefix or token."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.e2e.webrtc_probe import packet_listener, probe_listener, webrtc_answer
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# ICE gathering starts at once; before the fix the first packets came within a second.
LISTEN_MS = 4000


def test_an_artifact_reaches_nothing_through_webrtc_and_sees_no_prefix(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, _, _ = browser_page
    with packet_listener() as listener:
        open_ui(page, served_ui)
        prefix = urlsplit(page.url).path.rstrip("/")
        assert prefix.startswith("/ui-"), page.url
        add_provider(page, fresh_llm.openai_base_url)
        page.get_by_test_id("nav-chat").click()
        page.get_by_test_id("new-chat").click()
        fresh_llm.script({"text": webrtc_answer(listener.port)})
        send(page, "Make me a page")
        answer = last(page, "message-assistant")
        expect(answer).to_have_attribute("data-state", "done")

        answer.locator(".artifact-block").first.locator(".artifact-preview").click()
        frame = answer.locator(".artifact-block").first.frame_locator("iframe.artifact-frame")
        expect(frame.locator("#where")).not_to_have_text("waiting")
        # Nothing reached the listener (before the fix: STUN/TURN packets within a second).
        page.wait_for_timeout(LISTEN_MS)
        assert listener.packets == []
        where = frame.locator("#where").inner_text()
        # The artifact's own address: the sandbox page at the root, no prefix, no token.
        assert urlsplit(where).path == "/artifact.html", where
        assert prefix not in where and "token" not in where
        expect(frame.locator("#webrtc")).to_have_text("refused: TypeError")
        # No nested frame survived to run its own script.
        expect(frame.locator("iframe")).to_have_count(0)

        # The side panel's frame follows the same rules.
        answer.locator(".artifact-block").first.locator(".artifact-open").click()
        panel_frame = page.get_by_test_id("artifact-panel").frame_locator("iframe")
        expect(panel_frame.locator("#webrtc")).to_have_text("refused: TypeError")
        assert prefix not in panel_frame.locator("#where").inner_text()

        expect(page.get_by_test_id("app-root")).to_be_visible()  # the page did not crash
        probe_listener(listener)
        page.wait_for_timeout(300)
        assert listener.packets == [b"udp:control"]

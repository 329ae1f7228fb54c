"""Attachments in the REAL desktop window (Qt WebEngine under Xvfb, driven over CDP): a PNG
dropped on the composer reaches the scripted LLM server as an image part."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from tests.desktop.assets_check import ui_is_built
from tests.e2e.browser_helpers import open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_attachments import DATA_URL, last_user_message, mark_vision, send_with_png
from tests.e2e.test_desktop_window import pw, window  # noqa: F401 — fixtures used by name

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]


def test_a_png_dropped_in_the_window_reaches_the_model_as_an_image_part(
    window: Page,  # noqa: F811
    fresh_llm: FakeLLMProcess,
) -> None:
    open_view(window, "settings")
    mark_vision(window, "Fake LLM", "fake-model")
    window.get_by_test_id("nav-chat").click()
    window.get_by_test_id("new-chat").click()
    expect(window.get_by_test_id("composer-input")).to_be_editable()
    send_with_png(window, fresh_llm, "desktop image")
    assert last_user_message(fresh_llm)["content"] == [
        {"type": "text", "text": "desktop image"},
        {"type": "image_url", "image_url": {"url": DATA_URL}},
    ]

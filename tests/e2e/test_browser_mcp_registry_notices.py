"""Issue 40 item 18 in real Chromium against `cashcode serve` and a local registry: the
"malformed entries" notice stays after "More results", and the install form says which input
is required without the CLI's `add --input …` advice."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.testing.fake_mcp_registry import FakeMcpRegistry, pypi_package, server_json
from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

NEEDS_TOKEN = server_json(
    "io.example.tools/needs-token",
    "Needs a token",
    packages=[
        pypi_package(
            "needs-token",
            "1.0",
            environmentVariables=[
                {"name": "NEEDS_TOKEN_KEY", "description": "the token", "isRequired": True},
            ],
        )
    ],
)
MALFORMED = {"server": {"name": "no-slash-here", "description": "bad name", "version": "1"}}


@pytest.fixture
def registry() -> Iterator[FakeMcpRegistry]:
    extras = [
        server_json(f"io.example.more/extra-{i:02d}", f"Extra {i}", packages=[pypi_package(f"x-{i}", "1.0")])
        for i in range(31)
    ]
    with FakeMcpRegistry([MALFORMED, NEEDS_TOKEN, *extras]) as fake:
        yield fake


@pytest.fixture
def serve_env(
    app_env: dict[str, str], workspace: Path, registry: FakeMcpRegistry
) -> Iterator[dict[str, str]]:
    env = {**os.environ, **app_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    env["CASHCODE_MCP_TEST_SERVERS"] = ""
    env["CASHCODE_MCP_REGISTRY_URL"] = registry.base_url
    yield env


def test_the_malformed_notice_survives_more_results_and_the_form_gives_no_cli_advice(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, _, _ = browser_page
    page.goto(served_ui.start_url)
    page.get_by_test_id("nav-mcp").click()
    skipped = page.get_by_test_id("mcp-registry-skipped")
    expect(skipped).to_contain_text("1 malformed registry entries")
    rows = page.locator('[data-testid^="mcp-registry-extra-"]')
    expect(rows).to_have_count(28)  # page one: the malformed entry, needs-token, 28 extras
    page.get_by_test_id("mcp-registry-more").click()
    expect(rows).to_have_count(31)
    expect(skipped).to_contain_text("1 malformed registry entries")  # still said

    entry = page.get_by_test_id("mcp-registry-needs-token")
    entry.get_by_test_id("mcp-registry-install-needs-token").click()
    alert = entry.get_by_role("alert")
    expect(alert).to_contain_text("NEEDS_TOKEN_KEY")
    expect(alert).to_contain_text("is required")
    expect(alert).not_to_contain_text("--input")

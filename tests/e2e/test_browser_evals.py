"""The Evals view in real Chromium against `cashcode serve` and the scripted fake LLM: pick a
file, watch it run, see the results and the pass rate per model kept for comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import ARTIFACTS, EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

EVAL_FILE = """\
cases:
  - name: exact reply
    prompt: "Reply with exactly: CDY_EVAL_OK"
    expect:
      exact: CDY_EVAL_OK
  - name: required concepts
    prompt: "Include the literal terms Agent Loop and tool calling."
    expect:
      contains: [Agent Loop, tool calling]
"""


def test_an_eval_file_runs_from_the_view_and_its_results_are_kept(
    seeded_env: dict[str, str],
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    page, problems, _ = browser_page
    eval_file = tmp_path / "smoke.yaml"
    eval_file.write_text(EVAL_FILE, encoding="utf-8")
    fresh_llm.script(
        {"text": "CDY_EVAL_OK", "delay_s": 0.05}, {"text": "Only the Agent Loop.", "delay_s": 0.05}
    )

    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-evals").click()
    expect(page.get_by_test_id("evals-no-runs")).to_be_visible()
    page.get_by_test_id("evals-file").set_input_files(str(eval_file))

    expect(page.get_by_test_id("evals-summary")).to_have_text("1 of 2 passed")
    rows = page.get_by_test_id("evals-results").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("PASS")
    expect(rows.nth(1)).to_contain_text("FAIL")
    expect(rows.nth(1)).to_contain_text("missing 'tool calling'")
    expect(page.get_by_test_id("evals-runs").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("evals-by-model")).to_contain_text("50%")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "evals-view.png"), full_page=True)

    page.reload()
    page.get_by_test_id("nav-evals").click()
    expect(page.get_by_test_id("evals-runs").locator("tbody tr")).to_have_count(1)
    assert problems.messages == []

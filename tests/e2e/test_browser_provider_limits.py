"""The provider form's limits (issue 34): the timeout, temperature and max output tokens typed
in Settings → Providers reach the model request (the fake LLM's request log); "parallel
requests" and "lean tool list" reach the saved provider, and the lean choice the request's tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view, wait_for
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

API_KEY = "sk-browser-limits-0123456789"


def test_limits_typed_in_the_provider_form_reach_the_request(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    open_view(page, "settings")
    page.get_by_test_id("provider-add").click()
    page.get_by_test_id("provider-name").fill("Local llama")
    page.get_by_test_id("provider-kind").select_option("chat_completions")
    page.get_by_test_id("provider-base-url").fill(fresh_llm.openai_base_url)
    page.get_by_test_id("provider-key").fill(API_KEY)
    page.get_by_test_id("provider-timeout").fill("42")
    page.get_by_test_id("provider-add-model-row").click()
    expect(page.get_by_test_id("provider-model-id")).to_have_value("*")
    page.get_by_test_id("provider-temperature").fill("0.3")
    page.get_by_test_id("provider-max-tokens").fill("50")
    page.get_by_test_id("provider-save").click()
    expect(page.get_by_test_id("add-provider-dialog")).to_be_hidden()
    expect(page.get_by_test_id("provider-row")).to_contain_text("Local llama")

    fresh_llm.script({"text": "Limited answer."})
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("composer-input").fill("hi")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_test_id("message-assistant").last).to_contain_text("Limited answer.")

    def asked() -> list[dict[str, object]]:
        return [r for r in fresh_llm.requests() if r["path"] == "/v1/chat/completions"]

    wait_for(page, lambda: bool(asked()), "the model request")
    request = asked()[0]
    body = request["body"]
    assert isinstance(body, dict) and (body["temperature"], body["max_tokens"]) == (0.3, 50)
    headers = request["headers"]
    assert isinstance(headers, dict) and headers["x-stainless-read-timeout"] == "42.0"
    assert problems.messages == []


def _tool_names(fresh_llm: FakeLLMProcess) -> list[str]:
    asked = [r for r in fresh_llm.requests() if r["path"] == "/v1/chat/completions"]
    body = asked[-1]["body"]
    assert isinstance(body, dict)
    return [t["function"]["name"] for t in body.get("tools", [])]


def _saved(serve_env: dict[str, str]) -> dict[str, object]:
    settings = json.loads((Path(serve_env["CASHCODE_CONFIG_DIR"]) / "settings.json").read_text())
    (provider,) = [p for p in settings["providers"] if p["name"] == "Local llama"]
    assert isinstance(provider, dict)
    return provider


def _ask(page: Page, fresh_llm: FakeLLMProcess, answer: str) -> list[str]:
    fresh_llm.reset()
    fresh_llm.script({"text": answer})
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("composer-input").fill("hi")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_test_id("message-assistant").last).to_contain_text(answer)
    asked = lambda: any(r["path"] == "/v1/chat/completions" for r in fresh_llm.requests())  # noqa: E731
    wait_for(page, asked, "the request")
    return _tool_names(fresh_llm)


def test_parallel_requests_and_lean_tools_set_in_the_form_reach_the_provider_and_the_request(
    served_ui: ServeProcess,
    serve_env: dict[str, str],
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    open_view(page, "settings")
    page.get_by_test_id("provider-add").click()
    page.get_by_test_id("provider-name").fill("Local llama")
    page.get_by_test_id("provider-kind").select_option("chat_completions")
    page.get_by_test_id("provider-base-url").fill(fresh_llm.openai_base_url)  # loopback: local
    page.get_by_test_id("provider-key").fill(API_KEY)
    page.get_by_test_id("provider-parallel-requests").fill("3")
    page.get_by_test_id("provider-lean-tools").select_option("off")
    page.get_by_test_id("provider-save").click()
    expect(page.get_by_test_id("add-provider-dialog")).to_be_hidden()
    expect(page.get_by_test_id("provider-row")).to_contain_text("Local llama")
    wait_for(page, lambda: "parallel_requests" in _saved(serve_env), "the saved provider")
    assert (_saved(serve_env)["parallel_requests"], _saved(serve_env)["lean_tools"]) == (3, False)
    full = _ask(page, fresh_llm, "Every tool.")  # lean off on a local provider: every tool in full

    open_view(page, "settings")
    page.get_by_test_id("provider-edit").click()
    expect(page.get_by_test_id("provider-parallel-requests")).to_have_value("3")
    expect(page.get_by_test_id("provider-lean-tools")).to_have_value("off")
    page.get_by_test_id("provider-parallel-requests").fill("")  # back to the default
    page.get_by_test_id("provider-lean-tools").select_option("on")
    page.get_by_test_id("provider-save").click()
    wait_for(page, lambda: _saved(serve_env).get("lean_tools") is True, "the saved lean choice")
    assert _saved(serve_env).get("parallel_requests") is None
    lean = _ask(page, fresh_llm, "Few tools.")
    assert "tool_search" in lean and len(lean) < len(full), (lean, full)
    assert set(lean) - {"tool_search"} < set(full)
    assert problems.messages == []

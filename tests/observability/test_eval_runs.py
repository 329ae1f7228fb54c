"""Eval runs from the UI routes: progress events, stored results, pass rate per model."""

from __future__ import annotations

from typing import Any

import pytest

from app.observability.events import EvalProgress
from tests.api.conftest import AppMaker, add_provider, err, ok

FILE = """\
cases:
  - name: first
    prompt: "Say OK"
    expect: {exact: OK}
  - name: second
    prompt: "Say hello"
    expect: {contains: hello}
"""


async def test_a_run_reports_progress_stores_results_and_rates_per_model(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "OK"}, {"text": "goodbye"})
    model = {"provider_id": pid, "model": "fake-model"}
    started = await ok(app, "evals.run", {"content": FILE, "filename": "smoke.yaml", "model": model})
    assert started["status"] == "running" and started["total"] == 2
    await events.until(lambda: any(e.status == "done" for e in events.of(EvalProgress)))
    progress = events.of(EvalProgress)
    assert [(e.done, e.case, e.case_passed) for e in progress if e.status == "running"] == [
        (1, "first", True),
        (2, "second", False),
    ]
    run = await ok(app, "evals.get", {"id": started["id"]})
    assert (run["status"], run["passed"], run["total"]) == ("done", 1, 2)
    assert [r["passed"] for r in run["results"]] == [True, False]
    assert "contains: missing 'hello'" in run["results"][1]["reasons"][0]
    listing = await ok(app, "evals.runs")
    assert [r["id"] for r in listing["runs"]] == [started["id"]]
    assert listing["by_model"] == [
        {"provider_id": pid, "model": "fake-model", "runs": 1, "cases": 2, "passed": 1, "pass_rate": 0.5}
    ]
    chats = await ok(app, "chats.list")
    assert chats["chats"] == []  # each case's chat was removed


@pytest.mark.parametrize(
    ("payload", "code", "text"),
    [
        (
            {"content": "cases:\n  - name: a\n", "filename": "f.yaml"},
            "invalid",
            "f.yaml:2: cases[0].prompt: missing",
        ),
        ({"content": FILE, "filename": "../x.yaml"}, "invalid", "file name"),
        ({"content": FILE, "filename": "f.yaml"}, "invalid", "No model chosen"),
    ],
)
async def test_bad_runs_are_refused_before_anything_runs(
    make_app: AppMaker, payload: dict[str, Any], code: str, text: str
) -> None:
    app, _ = await make_app()
    error = await err(app, "evals.run", payload)
    assert error["code"] == code and text in error["message"]
    assert (await ok(app, "evals.runs"))["runs"] == []
    assert (await err(app, "evals.get", {"id": "0" * 32}))["code"] == "not_found"


async def test_only_one_run_at_a_time(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "OK", "delay_s": 0.2, "chunk_size": 1}, {"text": "hello"})
    model = {"provider_id": pid, "model": "fake-model"}
    await ok(app, "evals.run", {"content": FILE, "filename": "a.yaml", "model": model})
    busy = await err(app, "evals.run", {"content": FILE, "filename": "b.yaml", "model": model})
    assert busy["code"] == "busy"
    await events.until(lambda: any(e.status == "done" for e in events.of(EvalProgress)), 30)

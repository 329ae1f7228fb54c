"""Provider limits through the route the provider form calls (issue 34): they round-trip, a bad
value changes nothing, and the merged per-model limits are what consolidation and requests use."""

from __future__ import annotations

from typing import Any

from app.contracts.provider import ModelLimits
from tests.api.conftest import VALID_KEY, AppMaker, err, ok


def _form(server: Any, **limits: Any) -> dict[str, Any]:
    return {
        "name": "Llama",
        "kind": "chat_completions",
        "base_url": server.openai_base_url,
        "api_key": VALID_KEY,
        **limits,
    }


async def test_limits_round_trip_and_merge_per_model(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()
    rows = [
        {"model": "*", "temperature": 0.2, "max_output_tokens": 128},
        {"model": "fake-model", "context_length": 4096, "temperature": 0.7},
    ]
    view = await ok(
        app, "providers.save", _form(fake_llm, timeout_s=300, first_token_timeout_s=90, model_settings=rows)
    )
    assert (view["timeout_s"], view["first_token_timeout_s"]) == (300, 90)
    listed = (await ok(app, "providers.list"))["providers"][0]
    assert [e["model"] for e in listed["model_settings"]] == ["*", "fake-model"]
    providers = app.ctx.providers
    assert providers.limits(view["id"], "fake-model") == ModelLimits(0.7, 128, 4096)
    assert providers.limits(view["id"], "other") == ModelLimits(0.2, 128, None)
    assert providers.limits("missing", "x") == ModelLimits()
    assert providers.get(view["id"]).config.timeout_s == 300


async def test_a_bad_limit_is_refused_and_nothing_changes(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()
    for bad in (
        {"timeout_s": 0},
        {"model_settings": [{"model": "*", "temperature": 9}]},
        {"model_settings": [{"model": "a", "max_output_tokens": 5}, {"model": "a", "context_length": 1024}]},
    ):
        error = await err(app, "providers.save", _form(fake_llm, **bad))
        assert error["code"] == "invalid", error
    assert (await ok(app, "providers.list"))["providers"] == []

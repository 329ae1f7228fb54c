"""A secret header value (and a secret env value) never appears in any API response, event,
log line, error, stored message, file, or request to the model — even when a careless server
echoes it back."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from tests.api.conftest import AppMaker, add_provider, ok, send
from tests.mcp.helpers import ROUGH, add_rough, http_server

HEADER_SECRET = "topsecret-header-value-42"
ENV_SECRET = "topsecret-env-value-77"
OTHER_SECRET = "another-secret-key-9931"
QUERY_SECRET = "query-token-value-5150"


@pytest.fixture
def http_rough() -> Iterator[str]:
    with http_server(ROUGH, "--http") as url:
        yield url


async def test_secrets_never_leak(
    make_app: AppMaker,
    fake_llm: Any,
    http_rough: str,
    paths: AppPaths,
    secrets: SecretStore,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    app, events = await make_app()
    seen: list[Any] = []

    async def call(route: str, payload: dict[str, Any]) -> Any:
        envelope = await app.invoke(route, payload)
        seen.append(envelope)
        return envelope

    auth = f"Bearer {HEADER_SECRET}"
    created = await call(
        "mcp.servers.create",
        {
            "name": "leaky",
            "transport": "http",
            "url": f"{http_rough}?mode=x&access_token={QUERY_SECRET}",
            "headers": {"Authorization": auth},
        },
    )
    assert created["data"]["headers"] == {"Authorization": "********"}
    assert created["data"]["url"].endswith("?mode=x&access_token=********")
    assert secrets.get("mcp:leaky:query:access_token") == QUERY_SECRET
    await add_rough(app, "rough", env={"ROUGH_TOKEN": ENV_SECRET, "MODE": "x"}, secret_env=["ROUGH_TOKEN"])
    await call(
        "mcp.servers.create",
        {
            "name": "dead",
            "transport": "sse",
            "url": "http://127.0.0.1:9/sse",
            "headers": {"X-Api-Key": OTHER_SECRET},
        },
    )
    # submitting the mask keeps the stored secret
    await call(
        "mcp.servers.update",
        {"name": "leaky", "headers": {"Authorization": "********"}, "url": created["data"]["url"]},
    )
    assert secrets.get("mcp:leaky:header:Authorization") == auth
    assert secrets.get("mcp:leaky:query:access_token") == QUERY_SECRET

    for route, payload in [
        ("mcp.servers.connect", {"name": "leaky"}),
        ("mcp.tools.call", {"name": "leaky", "tool": "echo_header"}),
        ("mcp.servers.connect", {"name": "rough"}),
        ("mcp.tools.call", {"name": "rough", "tool": "echo_token"}),
        ("mcp.servers.connect", {"name": "dead"}),
        ("mcp.servers.list", {}),
        ("mcp.servers.get", {"name": "leaky"}),
        ("mcp.servers.get", {"name": "rough"}),
        ("mcp.servers.tools", {"name": "leaky"}),
    ]:
        await call(route, payload)
    echoed = seen[-8]["data"]["text"]
    # the server did receive both and echo them: redacted
    assert echoed.startswith("auth=********") and echoed.endswith("access_token=********")
    assert seen[-5]["ok"] is False  # the dead server failed …

    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "leaky"}}]},
        {"tool_calls": [{"name": "mcp_leaky_echo_header", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "rough"}}]},
        {"tool_calls": [{"name": "mcp_rough_echo_token", "arguments": {}}]},
        {"text": "done"},
    )
    turn = await send(app, chat, "leak please", pid)
    assert (await events.turn_end(turn, 90)).type == "turn_done"
    seen.append(await call("chats.get", {"chat_id": chat}))
    await app.aclose()

    haystacks = [json.dumps(e) for e in seen]
    haystacks += [e.model_dump_json() for e in events.events]
    haystacks += [r.message + json.dumps(r.args, default=str) for r in caplog.records]
    haystacks += [caplog.text, json.dumps([r.body for r in fake_llm.requests], default=str)]
    for root in (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir):
        haystacks += [p.read_bytes().decode("utf-8", "replace") for p in Path(root).rglob("*") if p.is_file()]
    for secret in (HEADER_SECRET, ENV_SECRET, OTHER_SECRET, QUERY_SECRET):
        leaks = [h[:200] for h in haystacks if secret in h]
        assert not leaks, (secret, leaks)
    assert any("********" in h for h in haystacks)

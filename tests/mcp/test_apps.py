"""MCP Apps through the API (issue 37 items 1 and 2), against a real stdio server of our own
(tests/mcp/servers/app_server.py) and the scripted LLM: a tool with an App is kept with its
result for its card and its page opens with the declared domains only; App-only tools never
reach the model; an App calls only App-visible tools of its own server, approved as the model's
call would be; a removed server leaves a placeholder; CashCode advertises the extension."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired
from app.mcp.events import McpAppActivity, McpAppCall
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send
from tests.mcp.helpers import free_port, wait_listening

APP_SERVER = Path(__file__).with_name("servers") / "app_server.py"
DECLARED = "http://127.0.0.1:9"


def probe_args(tmp_path: Path, *extra: str) -> tuple[list[str], dict[str, Path]]:
    files = {"report": tmp_path / "report.json", "caps": tmp_path / "caps.json"}
    args = [str(APP_SERVER), "--declared", DECLARED, "--report", str(files["report"])]
    return [*args, "--caps", str(files["caps"]), *extra], files


async def add_probe(app: Any, tmp_path: Path, *extra: str) -> dict[str, Path]:
    args, files = probe_args(tmp_path, *extra)
    entry = {"name": "probe", "transport": "stdio", "command": sys.executable, "args": args}
    await ok(app, "mcp.servers.create", entry)
    await ok(app, "mcp.servers.confirm", {"name": "probe"})
    return files


async def approve_all(app: Any, events: Recorder, turn: str) -> None:
    answered: set[str] = set()
    while True:
        await events.until(
            lambda: "turn_done" in events.types(turn)
            or "turn_failed" in events.types(turn)
            or any(e.turn_id == turn and e.approval_id not in answered for e in events.of(ApprovalRequired)),
            60,
        )
        pending = [
            e for e in events.of(ApprovalRequired) if e.turn_id == turn and e.approval_id not in answered
        ]
        if not pending:
            break
        for e in pending:
            answered.add(e.approval_id)
            await ok(app, "chat.approve", {"approval_id": e.approval_id, "decision": "once"})
    assert (await events.turn_end(turn, 60)).type == "turn_done"


async def shown_app(
    app: Any,
    events: Recorder,
    fake_llm: Any,
    tmp_path: Path,
    *extra: str,
    files: dict[str, Path] | None = None,
) -> tuple[str, str, dict[str, Path]]:
    """The model shows the probe App (the server is added over stdio unless `files` says it
    was added already)."""
    if files is None:
        files = await add_probe(app, tmp_path, *extra)
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "probe"}}]},
        {"tool_calls": [{"name": "mcp_probe_show_probe", "arguments": {"topic": "budget"}}]},
        {"text": "shown"},
    )
    turn = await send(app, chat, "Show the probe", pid)
    await approve_all(app, events, turn)
    shown = events.of(McpAppCall)
    assert len(shown) == 1 and shown[0].chat_id == chat and shown[0].tool == "show_probe"
    return chat, shown[0].call_id, files


@pytest.mark.timeout(180)
async def test_an_app_tool_is_kept_for_its_card_and_its_page_has_only_the_declared_domains(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    app, events = await make_app()
    chat, call_id, files = await shown_app(app, events, fake_llm, tmp_path)
    listed = (await ok(app, "mcp.apps.calls", {"chat_id": chat}))["calls"]
    assert [(c["call_id"], c["server"], c["uri"]) for c in listed] == [(call_id, "probe", "ui://probe/page.html")]

    view = await ok(app, "mcp.apps.open", {"chat_id": chat, "call_id": call_id})
    assert view["available"] is True and view["url"].startswith("/mcp-app/")
    assert view["tool_input"] == {"topic": "budget"}
    assert view["tool_result"]["structuredContent"] == {"topic": "budget", "answer": 42}
    assert view["connect_domains"] == [DECLARED] and view["resource_domains"] == []
    page = await ok(app, "mcp.apps.page", {"token": view["url"].rsplit("/", 1)[-1]})
    assert "ui/initialize" in page["html"] and page["connect_domains"] == [DECLARED] and page["allow"] == []

    # App-only tools never reach the model; the App tool and the model-only tool do.
    for request in fake_llm.model_requests():
        names = {t["function"]["name"] for t in request.body.get("tools", [])}
        assert "mcp_probe_app_save" not in names
    last = {t["function"]["name"] for t in fake_llm.model_requests()[-1].body["tools"]}
    assert {"mcp_probe_show_probe", "mcp_probe_model_secret"} <= last

    # The server's tool list marks the App tool with what its page declared, and the App-only tool.
    tools = {t["name"]: t for t in (await ok(app, "mcp.servers.tools", {"name": "probe"}))["tools"]}
    assert tools["show_probe"]["app_uri"] == "ui://probe/page.html"
    assert tools["show_probe"]["app_domains"] == [DECLARED] and tools["show_probe"]["app_permissions"] == []
    assert tools["app_save"]["visibility"] == ["app"] and tools["app_save"]["app_uri"] is None
    assert tools["model_secret"]["visibility"] == ["model"]

    # CashCode advertised the MCP Apps extension when it connected.
    caps = json.loads(files["caps"].read_text(encoding="utf-8"))
    assert caps["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"] == ["text/html;profile=mcp-app"]


@pytest.mark.timeout(180)
async def test_an_app_calls_only_app_tools_of_its_server_and_asks_first_like_the_model(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    import asyncio

    app, events = await make_app()
    chat, call_id, files = await shown_app(app, events, fake_llm, tmp_path)
    refused = await err(app, "mcp.apps.call", {"chat_id": chat, "call_id": call_id, "tool": "model_secret"})
    assert refused["code"] == "invalid" and "model only" in refused["message"]
    missing = await err(app, "mcp.apps.call", {"chat_id": chat, "call_id": "nope", "tool": "app_save"})
    assert missing["code"] == "not_found"

    asked_before = len(events.of(ApprovalRequired))
    call = asyncio.create_task(
        app.invoke(
            "mcp.apps.call",
            {"chat_id": chat, "call_id": call_id, "tool": "app_save", "arguments": {"report": {"a": 1}}},
        )
    )
    await events.until(lambda: len(events.of(ApprovalRequired)) > asked_before, 30)
    asked = events.of(ApprovalRequired)[-1]
    assert asked.chat_id == chat and "app_save" in asked.title
    assert not files["report"].exists()  # nothing ran before the person answered
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    answer = await asyncio.wait_for(call, 60)
    assert answer["ok"] is True, answer
    assert answer["data"]["result"]["content"][0]["text"] == "saved"
    assert json.loads(files["report"].read_text(encoding="utf-8")) == {"a": 1}
    shown = [e for e in events.of(McpAppActivity) if e.kind == "tool"]
    assert shown[-1].tool == "app_save" and shown[-1].ok and shown[-1].call_id == call_id

    # Denied: the server is not reached and the App is told.
    files["report"].unlink()
    call = asyncio.create_task(
        app.invoke(
            "mcp.apps.call",
            {"chat_id": chat, "call_id": call_id, "tool": "app_save", "arguments": {"report": {"b": 2}}},
        )
    )
    await events.until(lambda: len(events.of(ApprovalRequired)) > asked_before + 1, 30)
    denied = events.of(ApprovalRequired)[-1].approval_id
    await ok(app, "chat.approve", {"approval_id": denied, "decision": "deny"})
    answer = await asyncio.wait_for(call, 60)
    assert answer["data"]["denied"] is True and answer["data"]["result"]["isError"] is True
    assert not files["report"].exists()


@pytest.mark.timeout(180)
async def test_a_model_context_update_reaches_the_next_turn_and_a_removed_server_leaves_a_placeholder(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    app, events = await make_app()
    chat, call_id, _ = await shown_app(app, events, fake_llm, tmp_path)
    note = {"chat_id": chat, "call_id": call_id, "kind": "context", "text": "budget set to 70/30"}
    await ok(app, "mcp.apps.note", note)
    assert [e.text for e in events.of(McpAppActivity) if e.kind == "context"] == ["budget set to 70/30"]
    pid = (await ok(app, "providers.list"))["providers"][0]["id"]
    fake_llm.script({"text": "noted"})
    turn = await send(app, chat, "What did I pick?", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    sent = json.dumps(fake_llm.model_requests()[-1].body["messages"])
    assert "budget set to 70/30" in sent

    # An export shows the App as a static placeholder above its tool result: no page, no script.
    exported = (await ok(app, "chats.export", {"chat_id": chat, "format": "md"}))["content"]
    placeholder = (
        "> MCP App of show_probe (probe, ui://probe/page.html): interactive, shown in CashCode only."
    )
    assert placeholder in exported
    after = exported.split(placeholder, 1)[1]
    assert after.lstrip().startswith("**Tool result** (`mcp_probe_show_probe`)") and '"answer": 42' in after
    assert "<script" not in exported and "ui/initialize" not in exported

    await ok(app, "mcp.servers.delete", {"name": "probe"})
    view = await ok(app, "mcp.apps.open", {"chat_id": chat, "call_id": call_id})
    assert view["available"] is False and view["reason"] == "server_removed" and view["url"] == ""


@pytest.mark.timeout(180)
async def test_a_declared_permission_is_off_until_allowed_once_or_always_and_always_is_revocable(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    app, events = await make_app()
    chat, call_id, _ = await shown_app(app, events, fake_llm, tmp_path, "--permissions", "camera,microphone")
    ref = {"chat_id": chat, "call_id": call_id}
    view = await ok(app, "mcp.apps.open", ref)
    assert view["permissions"] == ["camera", "microphone"] and view["granted"] == []
    assert (await ok(app, "mcp.apps.page", {"token": view["url"].rsplit("/", 1)[-1]}))["allow"] == []

    once = await ok(app, "mcp.apps.permission", {**ref, "permission": "camera", "decision": "once"})
    assert (await ok(app, "mcp.apps.page", {"token": once["url"].rsplit("/", 1)[-1]}))["allow"] == ["camera"]
    assert (await ok(app, "approvals.list"))["grants"] == []  # once: no ledger row
    assert (await ok(app, "mcp.apps.open", ref))["granted"] == []

    asked = {**ref, "permission": "geolocation", "decision": "once"}
    undeclared = await err(app, "mcp.apps.permission", asked)
    assert undeclared["code"] == "invalid"

    await ok(app, "mcp.apps.permission", {**ref, "permission": "microphone", "decision": "always"})
    grants = (await ok(app, "approvals.list"))["grants"]
    key = ["probe", "ui://probe/page.html", "microphone"]
    assert [(g["kind"], g["key"]) for g in grants] == [("mcp_app", key)]
    again = await ok(app, "mcp.apps.open", ref)
    assert again["granted"] == ["microphone"]
    page = await ok(app, "mcp.apps.page", {"token": again["url"].rsplit("/", 1)[-1]})
    assert page["allow"] == ["microphone"]

    await ok(app, "approvals.revoke", {"grant_id": grants[0]["id"]})
    assert (await ok(app, "mcp.apps.open", ref))["granted"] == []


@pytest.fixture(params=[("--http", "http", "/mcp"), ("--sse", "sse", "/sse")], ids=["http", "sse"])
def probe_remote(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, str, dict[str, Path]]]:
    """The probe server over Streamable HTTP or SSE: (url, transport, its files)."""
    flag, transport, path = request.param
    port = free_port()
    args, files = probe_args(tmp_path, flag, str(port))
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port)
        yield f"http://127.0.0.1:{port}{path}", transport, files
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.timeout(180)
async def test_an_app_over_streamable_http_and_sse(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, probe_remote: tuple[str, str, dict[str, Path]]
) -> None:
    url, transport, files = probe_remote
    app, events = await make_app()
    await ok(app, "mcp.servers.create", {"name": "probe", "transport": transport, "url": url})
    chat, call_id, _ = await shown_app(app, events, fake_llm, tmp_path, files=files)
    view = await ok(app, "mcp.apps.open", {"chat_id": chat, "call_id": call_id})
    assert view["available"] and view["tool_result"]["structuredContent"]["topic"] == "budget"
    assert view["connect_domains"] == [DECLARED]
    caps = json.loads(files["caps"].read_text(encoding="utf-8"))
    assert "io.modelcontextprotocol/ui" in caps["extensions"]

"""Errors and approvals carry what the UI needs to word them (issue 25 item 6): a route failure's
catalog key and parameters, an approval's summary code and parameters; the English text stays
for the CLI and logs."""

from __future__ import annotations

import ast
import string
import sys
from pathlib import Path
from typing import Any

import pytest

from app.contracts.error_texts import ERROR_TEXTS
from app.contracts.errors import ApiFailure, Said, said, say
from app.contracts.events import ApprovalRequired
from app.mcp.events import McpServerStatus
from tests.api.conftest import AppMaker, add_provider, err, ok, send

APP = Path(__file__).resolve().parents[2] / "app"


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _calls(name: str) -> list[tuple[Path, ast.Call]]:
    found = []
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                found.append((path, node))
    return found


def test_every_key_said_in_the_app_is_in_the_catalog_with_its_parameters() -> None:
    used = set()
    for path, call in _calls("say"):
        first = call.args[0] if call.args else None
        if not isinstance(first, ast.Constant):
            continue  # say(key, ...) with a computed key: app/api/errors.py, tested below
        key = first.value
        used.add(key)
        assert key in ERROR_TEXTS, f"{path}:{call.lineno}: {key!r} is not in app/contracts/error_texts.py"
        given = {kw.arg for kw in call.keywords}
        assert given == _placeholders(ERROR_TEXTS[key]), f"{path}:{call.lineno}: {key} params {given}"
    assert len(used) > 100


def test_no_route_failure_is_raised_with_bare_english() -> None:
    """A literal or f-string message has no key, so the UI could only show English: use say()."""
    bare = [
        f"{path.relative_to(APP.parent)}:{call.lineno}"
        for path, call in _calls("ApiFailure")
        if len(call.args) > 1 and isinstance(call.args[1], ast.Constant | ast.JoinedStr)
    ]
    assert bare == []


def test_said_text_is_the_english_and_keeps_its_key_through_an_exception() -> None:
    text = say("kb.exists", name="Docs")
    assert text == "A knowledge base named 'Docs' already exists."
    assert isinstance(text, Said) and text.key == "kb.exists" and text.params == {"name": "Docs"}
    failure = ApiFailure("conflict", said(ValueError(text)))
    assert (failure.key, failure.params, failure.message) == ("kb.exists", {"name": "Docs"}, text)
    assert ApiFailure("invalid", "plain").key == ""
    with pytest.raises(KeyError):
        say("no.such.key")


async def test_a_route_failure_carries_its_key_and_parameters(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await ok(app, "knowledge.create", {"name": "Docs"})
    error = await err(app, "knowledge.create", {"name": "Docs"})
    assert error["code"] == "conflict"
    assert error["key"] == "kb.exists" and error["params"] == {"name": "Docs"}
    assert error["message"] == "A knowledge base named 'Docs' already exists."  # the CLI's text

    missing = await err(app, "chats.get", {"chat_id": "0" * 8 + "-0000-4000-8000-" + "0" * 12})
    assert missing["code"] == "not_found" and missing["key"] == "chat.not_found"
    assert set(missing["params"]) == {"id"}


async def test_a_validation_failure_says_which_field_and_why(make_app: AppMaker) -> None:
    app, _ = await make_app()
    error = await err(app, "knowledge.create", {"name": "Docs", "colour": "red"})
    assert error["code"] == "invalid"
    assert error["key"] == "request.field_unknown" and error["params"] == {"field": "colour"}
    assert error["message"] == "colour: this request has no such field."
    error = await err(app, "knowledge.create", {})
    assert error["key"] == "request.field_missing" and error["params"] == {"field": "name"}


async def test_an_approval_event_carries_a_summary_code_and_parameters(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt", "content": "hi!"}}]},
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["rm", "-rf", "build"]}}]},
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)

    def approvals() -> list[ApprovalRequired]:
        return [e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn]

    await events.until(lambda: len(approvals()) == 1)
    write = approvals()[0]
    assert write.summary is not None and write.summary.code == "write_file_new"
    assert write.summary.params == {"bytes": "3"}
    assert write.summary.exact == str(workspace.resolve() / "n.txt")
    assert write.detail.startswith("Write 3 bytes to ")  # the CLI's English is unchanged
    await ok(app, "chat.approve", {"approval_id": write.approval_id, "decision": "deny"})

    await events.until(lambda: len(approvals()) == 2)
    run = approvals()[1]
    assert run.summary is not None and run.summary.code == "run_command"
    assert run.summary.params == {"cwd": str(workspace.resolve())}
    assert run.summary.exact.endswith("rm -rf build") and "(in " not in run.summary.exact
    await ok(app, "chat.approve", {"approval_id": run.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"


async def test_an_mcp_connection_failure_carries_its_key(make_app: AppMaker, tmp_path: Path) -> None:
    """A program that is not an MCP server: the connect error, the server's view and its status
    event all name the catalog entry and what the program printed."""
    plain = tmp_path / "plain.py"
    plain.write_text("print('hello from a plain script')\nimport time\ntime.sleep(30)\n", encoding="utf-8")
    app, events = await make_app()
    payload = {"name": "plain", "transport": "stdio", "command": sys.executable, "args": [str(plain)]}
    await ok(app, "mcp.servers.create", payload)
    await ok(app, "mcp.servers.confirm", {"name": "plain"})
    error = await err(app, "mcp.servers.connect", {"name": "plain"})
    assert error["key"] == "mcp.not_mcp_output"
    assert error["params"] == {"output": "hello from a plain script"}
    assert "not an MCP server" in error["message"]  # the CLI's English
    view = next(s for s in (await ok(app, "mcp.servers.list"))["servers"] if s["name"] == "plain")
    assert view["status"] == "failed" and view["error_key"] == "mcp.not_mcp_output"
    status = [e for e in events.events if isinstance(e, McpServerStatus) and e.status == "failed"]
    assert status and status[-1].error_key == "mcp.not_mcp_output"
    assert status[-1].error_params == {"output": "hello from a plain script"}

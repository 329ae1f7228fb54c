"""Bad input and misbehaving servers end with a clear error and leave the catalog usable."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import ToolContext, ToolError
from app.contracts.turn import TurnSpec
from app.mcp.results import MAX_DESCRIPTION
from tests.api.conftest import AppMaker, err, ok
from tests.mcp.helpers import ROUGH, add_rough, server


async def test_a_stdio_entry_must_be_confirmed_and_an_argv_change_asks_again(make_app: AppMaker) -> None:
    app, _ = await make_app()
    created = await ok(
        app,
        "mcp.servers.create",
        {"name": "rough", "transport": "stdio", "command": sys.executable, "args": [str(ROUGH)]},
    )
    assert created["needs_confirmation"] and created["argv"] == [sys.executable, str(ROUGH)]
    assert created["status"] == "disconnected"  # saving never connects
    error = await err(app, "mcp.servers.connect", {"name": "rough"})
    assert error["code"] == "conflict" and str(ROUGH) in error["message"]
    assert not (await ok(app, "mcp.servers.confirm", {"name": "rough"}))["needs_confirmation"]
    edited = await ok(app, "mcp.servers.update", {"name": "rough", "args": [str(ROUGH), "--many", "2"]})
    assert edited["needs_confirmation"]


async def test_malformed_json_unknown_transport_and_missing_command_change_nothing(
    make_app: AppMaker,
) -> None:
    app, _ = await make_app()
    before = await ok(app, "mcp.servers.list")
    assert (await err(app, "mcp.servers.import_preview", {"text": "{not json"}))["code"] == "invalid"
    assert (await err(app, "mcp.servers.import_preview", {"text": "[]"}))["code"] == "invalid"
    snippet = json.dumps(
        {
            "mcpServers": {
                "weird": {"url": "http://127.0.0.1:9/x", "type": "websocket"},
                "nocmd": {"command": "", "args": []},
                "bad name!": {"command": "x"},
                "fine": {
                    "command": "definitely-not-a-real-program-xyz",
                    "args": ["--a"],
                    "env": {"API_KEY": "sk-import-secret-123", "MODE": "fast", "PATH": "/usr/bin:/bin"},
                },
            }
        }
    )
    preview = await ok(app, "mcp.servers.import_preview", {"text": snippet})
    items = {i["name"]: i for i in preview["items"]}
    assert "unknown transport" in items["weird"]["error"]
    assert "needs a command" in items["nocmd"]["error"]
    assert "invalid server name" in items["bad name!"]["error"]
    # a value is masked when its name says it is a secret; the rest is shown, loader variables
    # such as PATH always (issue 33 item 4, decision 283)
    assert items["fine"]["ok"] and items["fine"]["server"]["env"] == {
        "API_KEY": "********",
        "MODE": "fast",
        "PATH": "/usr/bin:/bin",
    }
    assert items["fine"]["server"]["loader_env"] == ["PATH"]
    assert await ok(app, "mcp.servers.list") == before  # a preview saves nothing

    result = await ok(app, "mcp.servers.import", {"text": snippet})
    assert result["created"] == ["fine"] and len(result["skipped"]) == 3
    assert "sk-import-secret-123" not in json.dumps(await ok(app, "mcp.servers.list"))
    assert (await err(app, "mcp.servers.create", {"name": "x", "transport": "carrier-pigeon"}))[
        "code"
    ] == "invalid"
    assert (await err(app, "mcp.servers.create", {"name": "y", "transport": "stdio"}))["code"] == "invalid"

    await ok(app, "mcp.servers.confirm", {"name": "fine"})
    error = await err(app, "mcp.servers.connect", {"name": "fine"})
    assert "was not found" in error["message"]
    listed = server(await ok(app, "mcp.servers.list"), "fine")
    assert listed["status"] == "failed" and "was not found" in listed["error"]
    # the rest of the catalog still works
    assert (await ok(app, "mcp.servers.connect", {"name": "test_stdio_mcp"}))["status"] == "connected"


async def test_crash_mid_call_is_reported_and_the_server_can_be_reconnected(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app)
    await ok(app, "mcp.servers.connect", {"name": "rough"})
    error = await err(app, "mcp.tools.call", {"name": "rough", "tool": "crash"})
    assert error["code"] == "provider_error" and "stopped" in error["message"]
    assert server(await ok(app, "mcp.servers.list"), "rough")["status"] == "failed"
    assert (await ok(app, "mcp.servers.connect", {"name": "rough"}))["status"] == "connected"
    failed = await ok(app, "mcp.tools.call", {"name": "rough", "tool": "fail"})
    assert not failed["ok"] and "fail" in failed["text"]


async def test_a_hanging_tool_times_out_and_the_connection_stays_usable(make_app: AppMaker) -> None:
    app, _ = await make_app(env={"CASHCODE_MCP_CALL_TIMEOUT_S": "2"})
    await add_rough(app)
    error = await err(app, "mcp.tools.call", {"name": "rough", "tool": "hang"})
    assert "did not answer within 2 s" in error["message"]
    assert (await ok(app, "mcp.tools.call", {"name": "rough", "tool": "progress"}))["text"] == "done"


async def test_ten_megabytes_of_output_are_capped_with_a_marker(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app)
    out = await ok(app, "mcp.tools.call", {"name": "rough", "tool": "big"})
    assert out["ok"] and out["truncated"]
    assert len(out["text"]) < 200_000 and "MCP output cut" in out["text"]


async def test_a_thousand_tools_and_an_invalid_schema(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app, "rough", "--many", "1000")
    await ok(app, "mcp.servers.connect", {"name": "rough"})
    tools = (await ok(app, "mcp.servers.tools", {"name": "rough"}))["tools"]
    assert len(tools) == 1012  # the 12 fixed tools of the rough server + 1000
    bad = next(t for t in tools if t["name"] == "bad_schema")
    assert bad["input_schema"] == {"type": "object", "properties": {}} and "invalid" in bad["diagnostic"]
    mcp = next(c for c in app.capabilities if c.name == "mcp")
    box = mcp.toolset(TurnSpec("", "t", "", "p", "m"))
    assert box is not None
    search = box.get("tool_search")
    assert search is not None
    ctx = ToolContext(workspace=Path("/"))
    result = await search.execute(await search.prepare({"query": "extra tool number 567"}, ctx), ctx)
    hits: list[dict[str, Any]] = json.loads(result.content)
    assert hits[0]["tool"] == "extra_tool_567" and hits[0]["name"] == "mcp_rough_extra_tool_567"
    assert (await ok(app, "mcp.tools.call", {"name": "rough", "tool": "bad_schema"}))[
        "text"
    ] == "still callable"


async def test_a_tool_with_a_non_object_input_schema_is_skipped_with_a_diagnostic(make_app: AppMaker) -> None:
    """Issue 24 item 5: one bad tool (`inputSchema: 5`, from a hand-written server) no longer
    fails the whole tool list; the others are offered and callable, the bad one is named."""
    app, _ = await make_app()
    raw = Path(__file__).with_name("servers") / "raw_schema_server.py"
    payload = {"name": "raw", "transport": "stdio", "command": sys.executable, "args": [str(raw)]}
    await ok(app, "mcp.servers.create", payload)
    await ok(app, "mcp.servers.confirm", {"name": "raw"})
    connected = await ok(app, "mcp.servers.connect", {"name": "raw"})
    assert connected["status"] == "connected", connected
    tools = (await ok(app, "mcp.servers.tools", {"name": "raw"}))["tools"]
    assert sorted(t["name"] for t in tools) == ["good_one", "good_two"]
    listed = server(await ok(app, "mcp.servers.list"), "raw")
    assert "broken" in json.dumps(listed) and "input schema" in json.dumps(listed)
    out = await ok(app, "mcp.tools.call", {"name": "raw", "tool": "good_two", "arguments": {"word": "hi"}})
    assert out["text"] == "good_two says hi"


async def test_long_tool_descriptions_reach_the_model_and_a_cut_is_marked(make_app: AppMaker) -> None:
    """Issue 22 item 4: over a real stdio connection, a 9,000-character description is offered
    whole and one over the cap ends with a marker saying how much was left out."""
    app, _ = await make_app()
    await add_rough(app, "rough", "--long-descriptions")
    chat = await ok(app, "chats.create")
    mcp = next(c for c in app.capabilities if c.name == "mcp")
    box = mcp.toolset(TurnSpec(chat["id"], "t", "", "p", "m"))
    assert box is not None
    prepare = box.get("mcp_prepare")
    assert prepare is not None
    ctx = ToolContext(workspace=Path("/"), chat_id=chat["id"], turn_id="t")
    result = await prepare.execute(await prepare.prepare({"server": "rough"}, ctx), ctx)
    assert "mcp_rough_long_doc" in result.content
    specs = {s.name: s for s in box.specs()}
    long_doc = specs["mcp_rough_long_doc"].description
    assert len(long_doc) == 9_001 and long_doc.endswith("END-OF-DOC")
    longer = specs["mcp_rough_longer_doc"].description
    assert longer.startswith("M" * MAX_DESCRIPTION)
    assert longer.endswith(f"[… description cut: {12_000 - MAX_DESCRIPTION} of 12000 characters left out]")


async def test_a_long_mcp_result_is_read_in_pages_with_mcp_result_page(make_app: AppMaker) -> None:
    """Issue 22 item 1: the first page fits the budget and names the call for the next; paging
    on delivers every kept character and ends with the marker of what the call left out."""
    app, _ = await make_app()
    await add_rough(app)
    chat = await ok(app, "chats.create")
    mcp = next(c for c in app.capabilities if c.name == "mcp")
    box = mcp.toolset(TurnSpec(chat["id"], "t", "", "p", "m"))
    assert box is not None
    ctx = ToolContext(workspace=Path("/"), chat_id=chat["id"], turn_id="t")
    prepare = box.get("mcp_prepare")
    assert prepare is not None
    await prepare.execute(await prepare.prepare({"server": "rough"}, ctx), ctx)
    assert "mcp_result_page" not in {s.name for s in box.specs()}  # offered only when needed
    big = box.get("mcp_rough_big")
    assert big is not None
    result = await big.execute(await big.prepare({}, ctx), ctx)
    assert result.truncated and len(result.content) <= ctx.output_budget
    found = re.search(
        r"continue with mcp_result_page id='(\w+)' offset=(\d+); this page ends inside a line[^\n]*\]$",
        result.content,
    )
    assert found is not None
    assert "mcp_result_page" in {s.name for s in box.specs()}
    pager = box.get("mcp_result_page")
    assert pager is not None
    seen = result.content[: result.content.index("\n[truncated:")]
    result_id, offset = found.group(1), int(found.group(2))
    for _ in range(200):
        page = await pager.execute(await pager.prepare({"id": result_id, "offset": offset}, ctx), ctx)
        assert len(page.content) <= ctx.output_budget
        more = re.search(
            r"\n\[truncated: [^\n]*offset=(\d+)(; this page ends inside a line[^\n]*)?\]$", page.content
        )
        seen += page.content[: more.start()] if more else page.content
        if more is None:
            break
        assert more.group(2)  # one 10 MB line: every page says it ends inside that line
        offset = int(more.group(1))
    assert seen.startswith("x" * 2_000_000)
    assert "MCP output cut: the result has 10000000 characters and only the first 2000000 are kept" in seen
    other = ToolContext(workspace=Path("/"), chat_id="another-chat", turn_id="t")
    with pytest.raises(ToolError, match="No kept MCP result"):
        await pager.execute(await pager.prepare({"id": result_id, "offset": 0}, other), other)

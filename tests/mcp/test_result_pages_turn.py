"""Issue 37 item 5: `mcp_result_page` reaches the whole of a long MCP result, in agent turns
against the scripted LLM (its request log shows what the model read), and no page splits a line
except a line longer than a page, which the page's marker names."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send
from tests.mcp.helpers import add_rough

COUNT, LONG_AT = 1_100, 500  # about 140,000 characters: more than one call kept before (100,000)
MARKER = re.compile(
    r"\n\[truncated: [^\n]*continue with mcp_result_page id='(\w+)' offset=(\d+)"
    r"(; this page ends inside a line longer than one page[^\n]*)?\]$"
)


def expected() -> str:
    """What tests/mcp/servers/rough_server.py `numbered_lines` returns for COUNT and LONG_AT."""
    lines = []
    for n in range(1, COUNT + 1):
        width = 30_000 if n == LONG_AT else 100
        lines.append(f"line {n:05d} ".ljust(width - 4, "." if n != LONG_AT else "~") + f" {n % 97:02d}")
    return "\n".join(lines) + f"\nLAST LINE {COUNT}"


async def run_turn(app: Any, events: Recorder, chat: str, pid: str, fake_llm: Any, text: str) -> str:
    """One turn; approves whatever it asks; returns the last tool output the model was sent."""
    turn = await send(app, chat, text, pid)
    answered: set[str] = set()
    while True:
        await events.until(
            lambda: (
                "turn_done" in events.types(turn)
                or "turn_failed" in events.types(turn)
                or any(
                    e.turn_id == turn for e in events.of(ApprovalRequired) if e.approval_id not in answered
                )
            ),
            60,
        )
        pending = [
            e for e in events.of(ApprovalRequired) if e.turn_id == turn and e.approval_id not in answered
        ]
        if not pending:
            break
        for e in pending:
            answered.add(e.approval_id)
            await ok(app, "chat.approve", {"approval_id": e.approval_id, "decision": "always"})
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    last = fake_llm.model_requests()[-1]
    outputs = [str(m.get("content")) for m in last.body["messages"] if m.get("role") == "tool"]
    return outputs[-1]


@pytest.mark.timeout(300)
async def test_paging_with_mcp_result_page_reaches_the_last_line_without_splitting_lines(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    # Every page stays in the chat: keep the background summary (which asks the model too) out.
    await ok(app, "memory.settings_update", {"consolidation_chars": 10_000_000})
    await add_rough(app, "rough", "--numbered-lines")
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "rough"}}]},
        {
            "tool_calls": [
                {"name": "mcp_rough_numbered_lines", "arguments": {"count": COUNT, "long_at": LONG_AT}}
            ]
        },
        {"text": "read the first page"},
    )
    output = await run_turn(app, events, chat, pid, fake_llm, "Number the lines")
    whole = expected()
    seen = ""
    inside_pages = 0
    for _ in range(40):
        found = MARKER.search(output)
        page = output[: found.start()] if found else output
        assert whole.startswith(seen + page), (len(seen), page[:200])
        if found is None:
            seen += page
            break
        if found.group(3):  # it ended inside the one line longer than a page
            inside_pages += 1
            end_line = whole.count("\n", 0, len(seen) + len(page)) + 1
            assert end_line == LONG_AT, end_line
        else:
            assert page.endswith("\n"), page[-200:]  # whole lines only
        seen += page
        assert int(found.group(2)) == len(seen)
        fake_llm.script(
            {
                "tool_calls": [
                    {"name": "mcp_result_page", "arguments": {"id": found.group(1), "offset": len(seen)}}
                ]
            },
            {"text": "read on"},
        )
        output = await run_turn(app, events, chat, pid, fake_llm, "Read on")
    assert seen == whole and seen.endswith(f"LAST LINE {COUNT}")
    assert inside_pages >= 1  # the 30,000-character line did not fit one page and was named
    await app.aclose()

"""The Inbox records every approval a turn asks, lists it with who asks and what exactly, and
takes the first answer of any surface (issue 35 items 1, 2)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired, ApprovalResolved, InboxChanged
from app.mcp.events import McpElicitation
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.mcp.helpers import add_rough

WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt", "content": "hi"}}]}


def _changed(events: Any, status: str) -> bool:
    return any(isinstance(e, InboxChanged) and e.status == status for e in events.events)


async def _asking(make_app: AppMaker, fake_llm: Any) -> tuple[Any, Any, str, ApprovalRequired]:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(WRITE, {"text": "done"})
    chat = await ok(app, "chats.create", {"title": "Notes chat"})
    turn = await send(app, chat["id"], "write", pid)
    await events.until(lambda: _changed(events, "pending"))
    approval = next(e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn)
    return app, events, turn, approval


async def test_an_approval_is_an_inbox_item_answered_through_the_inbox(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events, turn, approval = await _asking(make_app, fake_llm)
    listed = (await ok(app, "inbox.list"))["items"]
    assert len(listed) == 1
    item = listed[0]
    assert item["id"] == approval.approval_id and item["kind"] == "approval"
    assert item["who"] == "Notes chat" and item["origin"] == "chat" and item["tool"] == "write_file"
    assert approval.summary is not None and item["summary"] == approval.summary.model_dump()
    assert item["detail"] == approval.detail
    assert item["status"] == "pending" and item["answered_by"] is None
    await ok(app, "inbox.answer", {"id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (workspace / "n.txt").read_text() == "hi"
    resolved = next(e for e in events.events if isinstance(e, ApprovalResolved))
    assert resolved.decision == "once" and resolved.answered_by == "inbox"
    assert (await ok(app, "inbox.list"))["items"] == []
    done = (await ok(app, "inbox.list", {"include_answered": True}))["items"]
    assert [(i["status"], i["answer"], i["answered_by"]) for i in done] == [("answered", "once", "inbox")]
    changed = [e for e in events.events if isinstance(e, InboxChanged)]
    assert [(e.status, e.pending) for e in changed] == [("pending", 1), ("answered", 0)]


async def test_the_first_answer_wins_across_the_chat_dialog_and_the_inbox(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events, turn, approval = await _asking(make_app, fake_llm)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    late = await err(app, "inbox.answer", {"id": approval.approval_id, "decision": "once"})
    assert late["code"] == "conflict" and late["key"] == "inbox.answered"
    assert late["params"] == {"by": "chat", "status": "answered"}
    assert (await events.turn_end(turn)).type == "turn_done"
    assert not (workspace / "n.txt").exists()  # the deny counted, the later "once" did not
    resolved = [e for e in events.events if isinstance(e, ApprovalResolved)]
    assert [(e.decision, e.answered_by) for e in resolved] == [("deny", "chat")]


async def test_the_inbox_first_then_the_chat_dialog_is_told_it_was_answered(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events, turn, approval = await _asking(make_app, fake_llm)
    await ok(app, "inbox.answer", {"id": approval.approval_id, "decision": "once", "via": "cli"})
    late = await err(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    assert late["code"] == "conflict" and late["params"]["by"] == "cli"
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (workspace / "n.txt").read_text() == "hi"


async def test_bad_answers_change_nothing(make_app: AppMaker, fake_llm: Any, workspace: Path) -> None:
    app, events, turn, approval = await _asking(make_app, fake_llm)
    unknown = await err(app, "inbox.answer", {"id": "nope", "decision": "once"})
    assert unknown["code"] == "not_found" and unknown["key"] == "inbox.not_found"
    no_decision = await err(app, "inbox.answer", {"id": approval.approval_id})
    assert no_decision["code"] == "invalid"
    always = await err(app, "inbox.answer", {"id": approval.approval_id, "decision": "always"})
    assert always["code"] == "invalid"
    assert [i["status"] for i in (await ok(app, "inbox.list"))["items"]] == ["pending"]
    await ok(app, "chat.cancel", {"chat_id": approval.chat_id})
    assert (await events.turn_end(turn)).type == "turn_cancelled"
    await events.until(lambda: _changed(events, "cancelled"))
    done = (await ok(app, "inbox.list", {"include_answered": True}))["items"]
    assert [(i["status"], i["answered_by"]) for i in done] == [("cancelled", None)]


async def test_an_mcp_form_is_an_inbox_item_answered_with_text_fields(make_app: AppMaker) -> None:
    app, events = await make_app()
    await app.start_background()  # a long-lived surface (desktop, serve) shows forms
    await add_rough(app)
    call = asyncio.create_task(app.invoke("mcp.tools.call", {"name": "rough", "tool": "ask_person"}))
    await events.until(lambda: _changed(events, "pending"), 60)
    items = (await ok(app, "inbox.list"))["items"]
    assert len(items) == 1
    form = items[0]
    assert (
        form["kind"] == "elicitation" and form["detail"] == "Who should I greet?" and form["title"] == "rough"
    )
    assert {f["name"]: (f["type"], f["required"]) for f in form["fields"]} == {
        "name": ("string", True), "age": ("integer", False), "happy": ("boolean", False),
    }  # fmt: skip
    bad = await err(app, "inbox.answer", {"id": form["id"], "fields": {"name": "Ann", "age": "old"}})
    assert bad["code"] == "invalid" and bad["key"] == "inbox.bad_field" and "age" in bad["message"]
    missing = await err(app, "inbox.answer", {"id": form["id"], "fields": {"age": "31"}})
    assert missing["code"] == "invalid" and "name" in missing["message"]
    assert [i["status"] for i in (await ok(app, "inbox.list"))["items"]] == ["pending"]
    await ok(app, "inbox.answer", {"id": form["id"], "fields": {"name": "Ann", "age": "31", "happy": "no"}})
    result = await asyncio.wait_for(call, 60)
    assert result["data"]["text"] == "accepted Ann 31 False"
    done = (await ok(app, "inbox.list", {"include_answered": True}))["items"]
    assert [(i["status"], i["answer"], i["answered_by"]) for i in done] == [("answered", "accept", "inbox")]


async def test_a_form_answered_in_its_dialog_shows_as_answered_in_the_inbox(make_app: AppMaker) -> None:
    app, events = await make_app()
    await app.start_background()
    await add_rough(app)
    call = asyncio.create_task(app.invoke("mcp.tools.call", {"name": "rough", "tool": "ask_person"}))
    await events.until(lambda: _changed(events, "pending"), 60)
    request = events.of(McpElicitation)[0]
    await ok(app, "mcp.elicitation.answer", {"id": request.id, "action": "decline"})
    assert (await asyncio.wait_for(call, 60))["data"]["text"] == "decline"
    await events.until(lambda: _changed(events, "answered"), 60)
    done = (await ok(app, "inbox.list", {"include_answered": True}))["items"]
    assert [(i["status"], i["answer"], i["answered_by"]) for i in done] == [("answered", "decline", "chat")]
    late = await err(app, "inbox.answer", {"id": request.id, "decision": "deny"})
    assert late["code"] == "conflict"


async def test_a_memory_proposal_awaiting_review_is_an_inbox_item(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"dream_review": True})
    await ok(app, "memory.save", {"text": "- old fact"})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "Nice name!"})
    assert (await events.turn_end(await send(app, chat, "My cat is called Miso.", pid))).type == "turn_done"
    fake_llm.script({"text": "ADD cat"}, {"text": "- old fact\n- Has a cat called Miso"})
    proposal = (await ok(app, "dream.run"))["proposal_id"]
    await events.until(
        lambda: any(isinstance(e, InboxChanged) and e.item_id == proposal for e in events.events)
    )
    assert next(e for e in events.events if isinstance(e, InboxChanged)).pending == 1
    items = (await ok(app, "inbox.list"))["items"]
    assert [(i["id"], i["kind"], i["who"]) for i in items] == [(proposal, "memory_review", "Memory")]
    assert "+- Has a cat called Miso" in items[0]["detail"]
    await ok(app, "inbox.answer", {"id": proposal, "decision": "once", "via": "inbox"})
    assert (await ok(app, "memory.get"))["text"] == "- old fact\n- Has a cat called Miso\n"
    assert (await ok(app, "inbox.list"))["items"] == []
    again = await err(app, "inbox.answer", {"id": proposal, "decision": "deny"})
    assert again["code"] == "not_found"  # decided: no longer an item


async def test_deleting_a_chat_removes_its_items(make_app: AppMaker, fake_llm: Any, workspace: Path) -> None:
    app, events, turn, approval = await _asking(make_app, fake_llm)
    await ok(app, "inbox.answer", {"id": approval.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert len((await ok(app, "inbox.list", {"include_answered": True}))["items"]) == 1
    await ok(app, "chats.delete", {"chat_id": approval.chat_id})

    async def gone() -> bool:
        return (await ok(app, "inbox.list", {"include_answered": True}))["items"] == []

    for _ in range(100):  # the delete of the items is written on the store lane, after the chat's
        if await gone():
            break
        await asyncio.sleep(0.05)
    assert await gone()

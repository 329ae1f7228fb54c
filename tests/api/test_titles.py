"""Automatic chat titles (issue 24 item 6): from the whole first message, set when the turn
starts (so a failed first turn still titles the chat), and only for untitled new chats."""

from __future__ import annotations

from typing import Any

from app.contracts.events import SessionUpdated
from app.contracts.messages import Message
from tests.api.conftest import AppMaker, add_provider, fast_retry_factory, ok, send


async def test_the_title_is_the_whole_first_message_with_whitespace_collapsed(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "Sure."})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "Hi,\n\n  please   plan\tmy trip\nto Kyoto", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    got = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert got["chat"]["title"] == "Hi, please plan my trip to Kyoto"


async def test_a_failing_first_turn_still_titles_the_chat(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app(provider_factory=fast_retry_factory)
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(*[{"error": 500}] * 6)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "Why is the sky blue?", pid)
    assert (await events.turn_end(turn)).type == "turn_failed"
    got = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert got["chat"]["title"] == "Why is the sky blue?"
    assert [e.title for e in events.of(SessionUpdated)] == ["Why is the sky blue?"]


async def test_the_title_event_comes_before_the_answer_streams(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "A long answer in many small pieces.", "chunk_size": 3})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "Tell me", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    kinds = [e.type if not isinstance(e, SessionUpdated) else f"title:{e.title}" for e in events.events]
    assert "title:Tell me" in kinds and "delta" in kinds
    assert kinds.index("title:Tell me") < kinds.index("delta")


async def test_only_untitled_new_chats_are_titled(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "One."}, {"text": "Two."}, {"text": "Three."})
    # An untitled chat that already has messages (as an import of an untitled chat leaves it).
    old = await ok(app, "chats.create")
    app.ctx.chats.append_turn(
        old["id"],
        "00000000-0000-4000-8000-000000000001",
        [Message(role="user", content="earlier"), Message(role="assistant", content="reply")],
    )
    first = await send(app, old["id"], "A later question", pid)
    assert (await events.turn_end(first)).type == "turn_done"
    assert (await ok(app, "chats.get", {"chat_id": old["id"]}))["chat"]["title"] == ""
    # A chat the user named before its first message keeps that name.
    named = await ok(app, "chats.create", {"title": "My plans"})
    second = await send(app, named["id"], "Something else entirely", pid)
    assert (await events.turn_end(second)).type == "turn_done"
    assert (await ok(app, "chats.get", {"chat_id": named["id"]}))["chat"]["title"] == "My plans"
    # A new untitled chat is titled once; its second message does not retitle it.
    new = await ok(app, "chats.create")
    third = await send(app, new["id"], "First words", pid)
    assert (await events.turn_end(third)).type == "turn_done"
    assert (await ok(app, "chats.get", {"chat_id": new["id"]}))["chat"]["title"] == "First words"

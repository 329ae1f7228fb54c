"""Dream (SPEC S5.3) through the scripted LLM: two phases, cursors, no-op runs, review inbox."""

from __future__ import annotations

from typing import Any

from app.api.plugins import open_database
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.memory.helpers import memory_cap


async def _chat_with(app: Any, events: Any, pid: str, fake_llm: Any, user: str, reply: str) -> str:
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": reply})
    turn = await send(app, chat, user, pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    return str(chat)


async def _two_chats(app: Any, events: Any, fake_llm: Any) -> tuple[str, str, str]:
    pid = await add_provider(app, fake_llm, "chat_completions")
    first = await _chat_with(app, events, pid, fake_llm, "My cat is called Miso.", "Nice name!")
    second = await _chat_with(app, events, pid, fake_llm, "I work in Rust at Acme.", "Got it.")
    return pid, first, second


async def test_dream_over_two_chats_writes_memory_and_advances_both_cursors(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    _, first, second = await _two_chats(app, events, fake_llm)
    fake_llm.script(
        {"text": "ADD: cat Miso; ADD: works in Rust at Acme"},
        {"text": "```markdown\n# About the user\n- Has a cat called Miso\n- Works in Rust at Acme\n```"},
    )
    before = len(fake_llm.model_requests())
    result = await ok(app, "dream.run")
    assert result["status"] == "applied" and set(result["chats"]) == {first, second}
    phase1, phase2 = fake_llm.model_requests()[before:]
    analysis_input = phase1.body["messages"][1]["content"]
    assert "My cat is called Miso." in analysis_input and "I work in Rust at Acme." in analysis_input
    assert "ADD: cat Miso" in phase2.body["messages"][1]["content"]
    text = (await ok(app, "memory.get"))["text"]
    assert text == "# About the user\n- Has a cat called Miso\n- Works in Rust at Acme\n"
    assert "+- Has a cat called Miso" in result["diff"]
    cursors = memory_cap(app).services.dream.cursors
    assert cursors.get(first) == 2 and cursors.get(second) == 2
    versions = (await ok(app, "memory.versions"))["versions"]
    assert [v["author"] for v in versions] == ["dream"]

    # Nothing new: no model call at all.
    before = len(fake_llm.requests)
    again = await ok(app, "dream.run")
    assert again["status"] == "nothing_new" and len(fake_llm.requests) == before

    # New history in one chat: only that chat is read, from its cursor on.
    pid = (await ok(app, "providers.list"))["providers"][0]["id"]
    fake_llm.script({"text": "Miso is 3."})
    turn = await send(app, first, "Miso turned 3 today.", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    fake_llm.script({"text": "UPDATE: Miso is 3"}, {"text": text + "- Miso is 3 years old\n"})
    third = await ok(app, "dream.run")
    assert third["chats"] == [first]
    read = fake_llm.model_requests()[-2].body["messages"][1]["content"]
    history = read.split("New history:", 1)[1]
    assert "Miso turned 3 today." in history and "[user]\nMy cat is called Miso." not in history

    # Revert restores the text before Dream's first change.
    await ok(app, "memory.revert", {"version_id": versions[0]["id"]})
    assert (await ok(app, "memory.get"))["text"] == text


async def test_a_failed_or_empty_dream_changes_nothing(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    _, first, _ = await _two_chats(app, events, fake_llm)
    fake_llm.script({"text": "analysis"}, {"text": "  "})
    assert (await ok(app, "dream.run"))["status"] == "failed"
    fake_llm.script({"error": 400, "error_message": "bad"})
    result = await ok(app, "dream.run")
    assert result["status"] == "failed" and "bad" in result["message"]
    assert memory_cap(app).services.dream.cursors.get(first) == 0
    assert (await ok(app, "memory.versions"))["versions"] == []


async def test_review_mode_waits_for_accept(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    await ok(app, "memory.settings_update", {"dream_review": True})
    await ok(app, "memory.save", {"text": "- old fact"})
    await _two_chats(app, events, fake_llm)
    fake_llm.script({"text": "ADD cat"}, {"text": "- old fact\n- Has a cat called Miso"})
    result = await ok(app, "dream.run")
    assert result["status"] == "proposed" and result["proposal_id"]
    assert (await ok(app, "memory.get"))["text"] == "- old fact\n"  # unchanged until accepted
    inbox = (await ok(app, "dream.proposals"))["proposals"]
    assert [p["id"] for p in inbox] == [result["proposal_id"]] and "+- Has a cat called Miso" in inbox[0][
        "diff"
    ]
    accepted = await ok(app, "dream.accept", {"id": result["proposal_id"]})
    assert accepted["text"] == "- old fact\n- Has a cat called Miso\n"
    assert (await ok(app, "dream.proposals"))["proposals"] == []
    assert (await err(app, "dream.accept", {"id": result["proposal_id"]}))["code"] == "conflict"


async def test_review_mode_reject_and_a_stale_proposal(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    await ok(app, "memory.settings_update", {"dream_review": True})
    await _two_chats(app, events, fake_llm)
    fake_llm.script({"text": "ADD cat"}, {"text": "- cat Miso"})
    proposal = (await ok(app, "dream.run"))["proposal_id"]
    await ok(app, "memory.save", {"text": "- edited meanwhile"})
    error = await err(app, "dream.accept", {"id": proposal})
    assert error["code"] == "conflict" and "changed since" in error["message"]
    await ok(app, "dream.reject", {"id": proposal})
    assert (await ok(app, "memory.get"))["text"] == "- edited meanwhile\n"
    assert (await ok(app, "dream.proposals"))["proposals"] == []


async def test_no_model_chosen_means_no_run(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()
    chat = (await ok(app, "chats.create"))["id"]
    from app.contracts.messages import Message

    memory_cap(app).services.chats.append_turn(chat, "t1", [Message(role="user", content="hi")])
    result = await ok(app, "dream.run")
    assert result["status"] == "no_model" and fake_llm.requests == []


async def test_the_timer_runs_dream_in_the_background_and_stops(make_app: AppMaker, fake_llm: Any) -> None:
    import asyncio

    from app.memory.dream import DreamOutcome, DreamScheduler

    app, events = await make_app()
    _, first, second = await _two_chats(app, events, fake_llm)
    fake_llm.script({"text": "ADD cat"}, {"text": "- Has a cat called Miso"})
    outcomes: list[DreamOutcome] = []
    ran = asyncio.Event()

    def record(outcome: DreamOutcome) -> None:
        outcomes.append(outcome)
        ran.set()

    scheduler = DreamScheduler(memory_cap(app).services.dream, lambda: True, lambda: 1.0, on_outcome=record)
    scheduler.start()
    try:
        await asyncio.wait_for(ran.wait(), 30)
    finally:
        await scheduler.stop()
    assert outcomes[0].status == "applied" and set(outcomes[0].chats) == {first, second}
    assert (await ok(app, "memory.get"))["text"] == "- Has a cat called Miso\n"


def test_a_large_backlog_is_read_in_bounded_slices(tmp_path: Any) -> None:
    from app.contracts.messages import Message
    from app.memory.dream import DreamCursors
    from app.store.chats import ChatRepository

    db = open_database(tmp_path / "db.sqlite3")
    chats = ChatRepository(db)
    chat = chats.create("big").id
    for i in range(10):
        chats.append_turn(
            chat, f"t{i}", [Message(role="user", content="u" * 100), Message(role="assistant", content="a")]
        )
    cursors = DreamCursors(db, chats)
    first = cursors.pending(max_chars=500)
    assert len(first) == 1 and first[0].to_cursor < 20
    cursors.advance(first)
    assert cursors.get(chat) == first[0].to_cursor
    rest = cursors.pending()
    assert rest[0].messages[0].content == chats.history(chat, from_cursor=first[0].to_cursor + 1)[0].content
    cursors.advance(rest)
    assert cursors.pending() == [] and cursors.get(chat) == 20

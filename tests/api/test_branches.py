"""Edit and regenerate as branches (issue 11), through the real app and the scripted LLM server:
the model sees only the active path, siblings switch, and branches survive a restart."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok, send


def _texts(detail: dict[str, Any]) -> list[str]:
    return [m["content"] for m in detail["messages"]]


def _model_messages(fake_llm: Any) -> list[tuple[str, str]]:
    """(role, text) of the last model request, without the system prompt."""
    body = fake_llm.model_requests()[-1].body
    return [(m["role"], m["content"]) for m in body["messages"] if m["role"] != "system"]


async def _turn(app: Any, rec: Any, route: str, payload: dict[str, Any]) -> None:
    ref = await ok(app, route, payload)
    assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"


async def _two_turn_chat(app: Any, rec: Any, fake_llm: Any, pid: str) -> str:
    chat = await ok(app, "chats.create")
    for question, answer in (("first question", "first answer"), ("second question", "second answer")):
        fake_llm.script({"text": answer})
        turn = await send(app, chat["id"], question, pid)
        assert (await rec.turn_end(turn)).type == "turn_done"
    chat_id: str = chat["id"]
    return chat_id


async def test_edit_makes_a_branch_the_model_sees_only_the_active_path_and_it_survives_restart(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    model = {"provider_id": pid, "model": "fake-model"}
    chat_id = await _two_turn_chat(app, rec, fake_llm, pid)
    before = await ok(app, "chats.get", {"chat_id": chat_id})
    second_q = before["messages"][2]
    assert second_q["content"] == "second question" and second_q["siblings"] == [second_q["cursor"]]

    fake_llm.script({"text": "edited answer"})
    await _turn(
        app,
        rec,
        "chat.edit",
        {"chat_id": chat_id, "cursor": second_q["cursor"], "text": "edited q", "model": model},
    )
    # The model got the path up to the edited message's parent, then the new text: never the
    # replaced question or its answer.
    assert _model_messages(fake_llm) == [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("user", "edited q"),
    ]
    edited = await ok(app, "chats.get", {"chat_id": chat_id})
    assert _texts(edited) == ["first question", "first answer", "edited q", "edited answer"]
    new_q = edited["messages"][2]
    assert new_q["siblings"] == [second_q["cursor"], new_q["cursor"]] and new_q["sibling_index"] == 1
    assert edited["messages"][0]["siblings"] == [edited["messages"][0]["cursor"]]

    # A turn on the new branch continues it (the model still sees only this path).
    fake_llm.script({"text": "third answer"})
    turn = await send(app, chat_id, "third question", pid)
    assert (await rec.turn_end(turn)).type == "turn_done"
    assert ("user", "second question") not in _model_messages(fake_llm)
    assert _model_messages(fake_llm)[-2:] == [("assistant", "edited answer"), ("user", "third question")]

    # Switch back to the original branch and forth again.
    back = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": second_q["cursor"]})
    assert _texts(back) == ["first question", "first answer", "second question", "second answer"]
    assert back["messages"][2]["sibling_index"] == 0 and len(back["messages"][2]["siblings"]) == 2
    fake_llm.script({"text": "on the old branch"})
    turn = await send(app, chat_id, "continue old", pid)
    assert (await rec.turn_end(turn)).type == "turn_done"
    assert _model_messages(fake_llm)[-3:] == [
        ("user", "second question"),
        ("assistant", "second answer"),
        ("user", "continue old"),
    ]
    forth = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": new_q["cursor"]})
    assert _texts(forth) == [
        "first question",
        "first answer",
        "edited q",
        "edited answer",
        "third question",
        "third answer",
    ]
    # Switching to a message already on the active path changes nothing.
    same = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": new_q["cursor"]})
    assert same["messages"] == forth["messages"]
    await app.aclose()

    # A second app over the same data folder: the same branches and the same active one.
    again, _ = await make_app()
    reopened = await ok(again, "chats.get", {"chat_id": chat_id})
    assert reopened["messages"] == forth["messages"]
    old = await ok(again, "chats.switch_branch", {"chat_id": chat_id, "cursor": second_q["cursor"]})
    assert _texts(old)[-2:] == ["continue old", "on the old branch"]


async def test_regenerate_adds_a_sibling_answer_to_the_same_user_message(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _two_turn_chat(app, rec, fake_llm, pid)
    detail = await ok(app, "chats.get", {"chat_id": chat_id})
    answer = detail["messages"][3]

    fake_llm.script({"text": "another answer"})
    await _turn(app, rec, "chat.regenerate", {"chat_id": chat_id, "cursor": answer["cursor"]})
    assert _model_messages(fake_llm) == [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("user", "second question"),
    ]
    after = await ok(app, "chats.get", {"chat_id": chat_id})
    # No second copy of the question: the new answer is a sibling of the old one.
    assert _texts(after) == ["first question", "first answer", "second question", "another answer"]
    new = after["messages"][3]
    assert new["siblings"] == [answer["cursor"], new["cursor"]] and new["sibling_index"] == 1
    assert after["messages"][2]["siblings"] == [after["messages"][2]["cursor"]]

    # Regenerating from the user message itself works too (a third answer).
    fake_llm.script({"text": "third try"})
    await _turn(app, rec, "chat.regenerate", {"chat_id": chat_id, "cursor": after["messages"][2]["cursor"]})
    third = await ok(app, "chats.get", {"chat_id": chat_id})
    assert _texts(third)[-1] == "third try" and len(third["messages"][3]["siblings"]) == 3
    first = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": answer["cursor"]})
    assert _texts(first)[-1] == "second answer" and first["messages"][3]["sibling_index"] == 0


async def test_branch_routes_refuse_bad_targets_and_change_nothing(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _two_turn_chat(app, rec, fake_llm, pid)
    before = await ok(app, "chats.get", {"chat_id": chat_id})
    answer = before["messages"][1]["cursor"]
    assert (await err(app, "chat.edit", {"chat_id": chat_id, "cursor": answer, "text": "x"}))[
        "code"
    ] == "invalid"
    assert (await err(app, "chat.edit", {"chat_id": chat_id, "cursor": 999, "text": "x"}))[
        "code"
    ] == "not_found"
    assert (await err(app, "chat.edit", {"chat_id": chat_id, "cursor": 1, "text": " "}))["code"] == "invalid"
    assert (await err(app, "chat.regenerate", {"chat_id": chat_id, "cursor": 999}))["code"] == "not_found"
    assert (await err(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 999}))["code"] == "not_found"
    assert (await err(app, "chats.switch_branch", {"chat_id": "../x", "cursor": 1}))["code"] == "invalid"
    assert (await err(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 0}))["code"] == "invalid"
    assert (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"] == before["messages"]


async def test_editing_the_first_message_makes_a_second_first_message(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _two_turn_chat(app, rec, fake_llm, pid)
    fake_llm.script({"text": "fresh start"})
    await _turn(app, rec, "chat.edit", {"chat_id": chat_id, "cursor": 1, "text": "other opening"})
    assert _model_messages(fake_llm) == [("user", "other opening")]
    detail = await ok(app, "chats.get", {"chat_id": chat_id})
    assert _texts(detail) == ["other opening", "fresh start"]
    assert detail["messages"][0]["siblings"][0] == 1 and detail["messages"][0]["sibling_index"] == 1
    back = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 1})
    assert _texts(back) == ["first question", "first answer", "second question", "second answer"]


async def test_a_search_hit_on_another_branch_shows_it_and_make_current_switches_to_it(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _two_turn_chat(app, rec, fake_llm, pid)
    fake_llm.script({"text": "zebra crossing answer"})
    await _turn(app, rec, "chat.regenerate", {"chat_id": chat_id, "cursor": 4})
    await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 4})  # back to the first answer
    [group] = (await ok(app, "chats.search", {"query": "zebra crossing"}))["groups"]
    hits = group["hits"]
    assert [(h["chat_id"], h["cursor"]) for h in hits] == [(chat_id, 5)]
    assert hits[0]["version"] == {"index": 2, "count": 2, "cursor": 5}
    # What the UI does when a hit is opened: that version is shown, the current one stays.
    viewed = await ok(app, "chats.get", {"chat_id": chat_id, "through": 5})
    assert _texts(viewed)[-1] == "zebra crossing answer" and viewed["viewing"]["index"] == 2
    assert _texts(await ok(app, "chats.get", {"chat_id": chat_id}))[-1] == "second answer"
    # "Make current" switches to the viewed leaf.
    shown = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": viewed["viewing"]["leaf"]})
    assert _texts(shown)[-1] == "zebra crossing answer"

"""A first run that just works: the first provider's models are discovered and one is chosen,
and the chat list carries each chat's message count and last activity."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok


async def test_saving_the_first_provider_chooses_one_of_its_models(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    assert (await ok(app, "settings.get"))["last_model"] is None
    pid = await add_provider(app, fake_llm, "chat_completions")
    chosen = (await ok(app, "settings.get"))["last_model"]
    assert chosen == {"provider_id": pid, "model": "fake-model"}  # tool-capable, first by name

    # A second provider does not replace the choice.
    await add_provider(app, fake_llm, "ollama")
    assert (await ok(app, "settings.get"))["last_model"] == chosen

    # The first message needs no model in the request.
    chat = await ok(app, "chats.create")
    fake_llm.script({"text": "First answer."})
    ref = await ok(app, "chat.send", {"chat_id": chat["id"], "text": "hello"})
    end = await rec.turn_end(ref["turn_id"])
    assert end.type == "turn_done"
    assert fake_llm.requests[-1].body["model"] == "fake-model"


async def test_a_send_without_a_chosen_model_discovers_one(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    # A provider that cannot be reached when saved: nothing is chosen, the save still works.
    await ok(
        app,
        "providers.save",
        {"name": "Down", "kind": "chat_completions", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-x"},
    )
    assert (await ok(app, "settings.get"))["last_model"] is None
    chat = await ok(app, "chats.create")
    error = await err(app, "chat.send", {"chat_id": chat["id"], "text": "hello"})
    assert error["code"] == "invalid" and "Settings" in error["message"]

    pid = await add_provider(app, fake_llm, "responses")
    await ok(app, "settings.update", {"theme": "dark"})
    fake_llm.script({"text": "Answer."})
    ref = await ok(app, "chat.send", {"chat_id": chat["id"], "text": "hello again"})
    assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"
    assert (await ok(app, "settings.get"))["last_model"]["provider_id"] == pid


async def test_the_chat_list_shows_message_count_and_last_activity(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    await add_provider(app, fake_llm, "chat_completions")
    empty = await ok(app, "chats.create")
    busy = await ok(app, "chats.create")
    for text in ("one", "two"):
        fake_llm.script({"text": f"answer {text}"})
        ref = await ok(app, "chat.send", {"chat_id": busy["id"], "text": text})
        assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"
    listed = {c["id"]: c for c in (await ok(app, "chats.list"))["chats"]}
    assert listed[empty["id"]]["message_count"] == 0
    assert listed[empty["id"]]["last_activity"] == empty["created_at"]
    assert listed[busy["id"]]["message_count"] == 4
    assert listed[busy["id"]]["last_activity"] > busy["created_at"]
    detail = await ok(app, "chats.get", {"chat_id": busy["id"]})
    assert detail["chat"]["message_count"] == 4

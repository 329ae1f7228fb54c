"""Composer ↔ MCP: a resource attached to a message reaches the scripted model (text with its
URI, an image as an image part, other blobs as a note), is stored with the message, survives a
restart and is exported; a prompt's `prompts/get` result is what the composer inserts."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok
from tests.mcp.helpers import add_rough


def _user_parts(fake_llm: Any) -> list[dict[str, Any]]:
    body = fake_llm.model_requests()[-1].body
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    parts: list[dict[str, Any]] = user["content"]
    return parts


async def _attach(app: Any, uri: str, title: str) -> list[dict[str, Any]]:
    got = await ok(app, "mcp.resources.attach", {"name": "rough", "uri": uri, "title": title})
    refs: list[dict[str, Any]] = got["attachments"]
    return refs


async def test_attached_resources_reach_the_model_and_are_kept_with_the_message(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    await add_rough(app)
    await ok(app, "mcp.servers.connect", {"name": "rough"})
    listed = {r["uri"]: r for r in (await ok(app, "mcp.resources.list", {"name": "rough"}))["resources"]}
    assert {"rough://notes", "rough://dot.png", "rough://data.bin"} <= set(listed)

    [text_ref] = await _attach(app, "rough://notes", "notes")
    [image_ref] = await _attach(app, "rough://dot.png", "dot")
    [blob_ref] = await _attach(app, "rough://data.bin", "data")
    assert (text_ref["kind"], text_ref["name"], text_ref["mime"]) == (
        "text",
        "rough · notes",
        "text/markdown",
    )
    assert (image_ref["kind"], image_ref["mime"]) == ("image", "image/png")
    assert blob_ref["kind"] == "text"

    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"vision_models": {pid: ["fake-model"]}})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "Noted."})
    sent = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat,
            "text": "Use these",
            "model": {"provider_id": pid, "model": "fake-model"},
            "attachments": [text_ref, image_ref, blob_ref],
        },
    )
    assert (await events.turn_end(sent["turn_id"], 60)).type == "turn_done"

    parts = _user_parts(fake_llm)
    assert parts[0] == {"type": "text", "text": "Use these"}
    assert parts[1]["type"] == "text"
    assert "[MCP resource rough://notes from server rough]" in parts[1]["text"]
    assert "Ship on Friday. 周五发布。" in parts[1]["text"]
    assert parts[2]["type"] == "image_url"
    assert parts[2]["image_url"]["url"].startswith("data:image/png;base64,")
    png = base64.b64decode(parts[2]["image_url"]["url"].split(",", 1)[1])
    assert png.startswith(b"\x89PNG")
    assert "rough://data.bin" in parts[3]["text"] and "256 bytes" in parts[3]["text"]
    assert "cannot read it" in parts[3]["text"]

    # stored with the message, restored by a new app on the same data folder, exported
    again, _ = await make_app()  # a second app on the same data folder reads what the first stored
    messages = (await ok(again, "chats.get", {"chat_id": chat}))["messages"]
    assert messages[0]["attachments"] == [text_ref, image_ref, blob_ref]
    exported = json.loads((await ok(again, "chats.export", {"chat_id": chat, "format": "json"}))["content"])
    assert {text_ref["sha256"], image_ref["sha256"], blob_ref["sha256"]} <= set(exported["attachments"])
    md = (await ok(again, "chats.export", {"chat_id": chat, "format": "md"}))["content"]
    assert "rough · notes" in md


async def test_an_image_resource_to_a_model_without_vision_is_refused_clearly(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, _ = await make_app()
    await add_rough(app)
    [image_ref] = await _attach(app, "rough://dot.png", "dot")  # connects on demand
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    payload = {
        "chat_id": chat,
        "text": "see",
        "model": {"provider_id": pid, "model": "fake-model"},
        "attachments": [image_ref],
    }
    error = await err(app, "chat.send", payload)
    assert error["code"] == "invalid" and "cannot see images" in error["message"]
    assert fake_llm.model_requests() == []


async def test_bad_resource_requests_fail_clearly(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app)
    missing = await err(app, "mcp.resources.attach", {"name": "rough", "uri": "rough://nope"})
    assert missing["code"] == "provider_error" and "rough://nope" in missing["message"]
    unknown = await err(app, "mcp.resources.attach", {"name": "nobody", "uri": "x://y"})
    assert unknown["code"] == "not_found"


async def test_a_prompt_with_arguments_gives_the_text_the_composer_inserts(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app)
    prompts = {p["name"]: p for p in (await ok(app, "mcp.prompts.list", {"name": "rough"}))["prompts"]}
    review = prompts["review"]
    assert [(a["name"], a["required"]) for a in review["arguments"]] == [("topic", True), ("tone", False)]
    got = await ok(
        app, "mcp.prompts.get", {"name": "rough", "prompt": "review", "arguments": {"topic": "the plan"}}
    )
    assert got["messages"] == [
        {"role": "user", "text": "Review the plan in a friendly tone."},
        {"role": "assistant", "text": "Sure — what should I focus on?"},
    ]
    missing = await err(app, "mcp.prompts.get", {"name": "rough", "prompt": "review", "arguments": {}})
    assert missing["code"] == "invalid" and "arguments.topic" in missing["message"]

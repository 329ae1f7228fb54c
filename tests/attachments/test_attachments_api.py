"""Attachments through the real app: upload, storage, what each provider kind receives over
HTTP, vision checks and limits."""

from __future__ import annotations

import base64
import json
import sqlite3
from typing import Any

import pytest

from app.contracts.provider import AttachmentInput, ModelRequest
from app.llm.json_body import encode_json
from app.llm.wire_ollama import native_request
from tests.api.conftest import KINDS, AppMaker, add_provider, err, ok
from tests.attachments.helpers import pdf, pdf_bomb, png


async def upload(app: Any, name: str, data: bytes, mime: str = "") -> dict[str, Any]:
    return await ok(
        app,
        "attachments.upload",
        {"name": name, "mime": mime, "data_base64": base64.b64encode(data).decode()},
    )


def _user_message(body: dict[str, Any]) -> Any:
    items = body.get("messages") or body.get("input")
    assert items is not None, "the request has neither messages nor input"
    return [m for m in items if m.get("role") == "user"][-1]


async def _send(
    app: Any, rec: Any, chat_id: str, pid: str, model: str, refs: list[dict[str, Any]], text: str
) -> None:
    payload = {
        "chat_id": chat_id,
        "text": text,
        "model": {"provider_id": pid, "model": model},
        "attachments": refs,
    }
    ref = await ok(app, "chat.send", payload)
    assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"


async def test_an_upload_is_stored_content_addressed_and_only_referenced_in_sqlite(
    make_app: AppMaker, fake_llm: Any, paths: Any
) -> None:
    app, rec = await make_app()
    image = png(extra=50_000)
    ref = await upload(app, "../../etc/dot.png", image, "image/png")
    assert ref["name"] == "dot.png" and ref["kind"] == "image" and ref["mime"] == "image/png"
    assert ref["size"] == len(image)
    stored = paths.data_dir / "attachments" / ref["sha256"][:2] / ref["sha256"]
    assert stored.read_bytes() == image
    # The base64 text a send reads is written once, beside the file (app/llm/json_body.py).
    assert stored.with_suffix(".b64").read_bytes() == base64.b64encode(image)
    again = await upload(app, "copy.png", image)
    assert again["sha256"] == ref["sha256"]
    assert sorted(p.name for p in stored.parent.iterdir()) == [ref["sha256"], ref["sha256"] + ".b64"]

    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"vision_models": {pid: ["fake-model"]}})
    chat = await ok(app, "chats.create")
    await _send(app, rec, chat["id"], pid, "fake-model", [ref], "What is this?")
    with sqlite3.connect(paths.db_path) as db:
        metas = [r[0] for r in db.execute("SELECT meta FROM messages")]
    assert any(ref["sha256"] in m for m in metas)
    assert max(len(m) for m in metas) < 1000  # a reference, never the bytes
    # Restored with the message, and the thumbnail bytes come back on request.
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert detail["messages"][0]["attachments"] == [ref]
    data = await ok(app, "attachments.data", {"sha256": ref["sha256"]})
    assert base64.b64decode(data["data_base64"]) == image and data["mime"] == "image/png"


@pytest.mark.parametrize("kind", KINDS)
async def test_an_image_reaches_each_provider_kind_as_an_image_part(
    make_app: AppMaker, fake_llm: Any, kind: str
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, kind)
    model = "fake-vision" if kind == "ollama" else "fake-model"  # Ollama reports vision itself
    if kind != "ollama":
        await ok(app, "settings.update", {"vision_models": {pid: ["fake-model"]}})
    image = png()
    ref = await upload(app, "dot.png", image)
    chat = await ok(app, "chats.create")
    await _send(app, rec, chat["id"], pid, model, [ref], "Describe it")
    message = _user_message(fake_llm.requests[-1].body)
    url = "data:image/png;base64," + base64.b64encode(image).decode()
    if kind == "responses":
        assert message["content"] == [
            {"type": "input_text", "text": "Describe it"},
            {"type": "input_image", "image_url": url},
        ]
    else:  # Chat Completions, and Ollama through its OpenAI-compatible /v1
        assert message["content"] == [
            {"type": "text", "text": "Describe it"},
            {"type": "image_url", "image_url": {"url": url}},
        ]


def test_ollama_native_requests_carry_images_as_base64() -> None:
    from app.contracts.messages import AttachmentRef, Message

    ref = AttachmentRef(sha256="a" * 64, name="dot.png", mime="image/png", size=3, kind="image")
    note = AttachmentRef(sha256="b" * 64, name="notes.txt", mime="text/plain", size=5, kind="text")
    request = ModelRequest(
        model="llava",
        messages=(Message(role="user", content="Look", attachments=(ref, note)),),
        attachment_inputs={
            "a" * 64: AttachmentInput(kind="image", name="dot.png", mime="image/png", data_b64=b"AAEC"),
            "b" * 64: AttachmentInput(kind="text", name="notes.txt", mime="text/plain", text="hello"),
        },
    )
    [message] = json.loads(encode_json(native_request(request)))["messages"]
    assert message["images"] == ["AAEC"]
    assert (
        message["content"] == 'Look\n\n<attachment name="notes.txt" type="text/plain">\nhello\n</attachment>'
    )


async def test_text_files_and_pdfs_arrive_with_their_names(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    text_ref = await upload(app, "notes.md", "# Plan\n先做这个。".encode(), "text/markdown")
    pdf_ref = await upload(app, "report.pdf", pdf("Quarterly revenue grew"), "application/pdf")
    assert (text_ref["kind"], pdf_ref["kind"]) == ("text", "pdf")
    chat = await ok(app, "chats.create")
    await _send(app, rec, chat["id"], pid, "fake-model", [text_ref, pdf_ref], "Summarise")
    parts = _user_message(fake_llm.requests[-1].body)["content"]
    assert parts[0] == {"type": "text", "text": "Summarise"}
    assert (
        parts[1]["text"]
        == '<attachment name="notes.md" type="text/markdown">\n# Plan\n先做这个。\n</attachment>'
    )
    assert parts[2]["text"].startswith('<attachment name="report.pdf" type="application/pdf">')
    assert "Quarterly revenue grew" in parts[2]["text"]


async def test_images_to_a_model_without_vision_are_refused_before_sending(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, _ = await make_app()
    chat = await ok(app, "chats.create")
    ref = await upload(app, "dot.png", png())
    for kind, model in (("chat_completions", "fake-model"), ("ollama", "fake-tools")):
        pid = await add_provider(app, fake_llm, kind)
        before = len(fake_llm.requests)
        payload = {
            "chat_id": chat["id"],
            "text": "hi",
            "model": {"provider_id": pid, "model": model},
            "attachments": [ref],
        }
        error = await err(app, "chat.send", payload)
        assert error["code"] == "invalid" and f"The model {model} cannot see images" in error["message"]
        chat_requests = [r for r in fake_llm.requests[before:] if r.method == "POST" and "chat" in r.path]
        assert chat_requests == []
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []


async def test_limits_and_bad_files_are_refused_with_a_message(make_app: AppMaker, paths: Any) -> None:
    app, _ = await make_app()
    big = png(extra=20 * 1024 * 1024)
    error = await err(
        app, "attachments.upload", {"name": "huge.png", "data_base64": base64.b64encode(big).decode()}
    )
    assert error["code"] == "invalid" and "huge.png is 20 MB; images may be at most 20 MB" in error["message"]
    binary = await err(
        app, "attachments.upload", {"name": "a.exe", "data_base64": base64.b64encode(b"MZ\x00\x01").decode()}
    )
    assert "only images (PNG, JPEG, GIF, WebP), text files and PDFs" in binary["message"]
    assert not (paths.data_dir / "attachments").exists() or not any(
        (paths.data_dir / "attachments").rglob("*.*")
    )

    chat = await ok(app, "chats.create")
    refs = [await upload(app, f"n{i}.txt", f"note {i}".encode()) for i in range(11)]
    too_many = await err(app, "chat.send", {"chat_id": chat["id"], "text": "x", "attachments": refs})
    assert too_many["code"] == "invalid" and "At most 10 files" in too_many["message"]
    forged = {**refs[0], "size": 999}
    bad_ref = await err(app, "chat.send", {"chat_id": chat["id"], "text": "x", "attachments": [forged]})
    assert "does not match the stored file" in bad_ref["message"]
    empty = await err(app, "chat.send", {"chat_id": chat["id"], "text": "  "})
    assert empty["code"] == "invalid"


async def test_a_pdf_bomb_is_told_to_the_model_as_too_complex(make_app: AppMaker, fake_llm: Any) -> None:
    """Issue 24 item 5: a decompression bomb is not an "Internal error: LimitReachedError"."""
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    bomb = await upload(app, "bomb.pdf", pdf_bomb(), "application/pdf")
    assert bomb["kind"] == "pdf"
    chat = await ok(app, "chats.create")
    await _send(app, rec, chat["id"], pid, "fake-model", [bomb], "What is in it?")
    parts = _user_message(fake_llm.requests[-1].body)["content"]
    assert "[bomb.pdf: this PDF is too complex to read]" in parts[1]["text"]
    assert "LimitReached" not in json.dumps(fake_llm.requests[-1].body)


HOSTILE_NAME = "evil\x00name\x1b[31m\u202etxt.exe\nsecond line\x7f.md"


async def test_control_characters_in_a_name_are_replaced_on_store(
    make_app: AppMaker, fake_llm: Any, paths: Any
) -> None:
    """Issue 33.12: NUL, escape sequences, line breaks and bidirectional overrides in a file
    name are replaced, both when uploaded and in a reference a client sends itself."""
    app, rec = await make_app()
    ref = await upload(app, HOSTILE_NAME, b"plain text\n", "text/markdown")
    assert ref["name"] == "evil_name_[31m_txt.exe_second line_.md"
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    raw = {**ref, "name": HOSTILE_NAME}  # a client that skips the upload's answer
    await _send(app, rec, chat["id"], pid, "fake-model", [raw], "Read it")
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert [a["name"] for a in detail["messages"][0]["attachments"]] == [ref["name"]]
    with sqlite3.connect(paths.db_path) as db:
        metas = "".join(r[0] for r in db.execute("SELECT meta FROM messages"))
    assert "\\u0000" not in metas and "\\u001b" not in metas and "\\u202e" not in metas
    sent = _user_message(fake_llm.requests[-1].body)["content"][1]["text"]
    assert sent.startswith(f'<attachment name="{ref["name"]}"')

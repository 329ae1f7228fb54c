"""Request bodies with images: base64 spliced into the JSON bytes (app/llm/json_body.py), and
what each provider kind puts on the wire over real HTTP."""

from __future__ import annotations

import base64
import json
import random

import pytest

from app.contracts.messages import AttachmentRef, Message
from app.contracts.provider import AttachmentInput, ModelRequest, TextDelta
from app.llm.json_body import Base64Blob, encode_json, has_blobs, plain
from app.testing.fake_llm import FakeLLMServer
from tests.llm.conftest import VARIANTS, ProviderMaker, collect


def _dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def test_the_spliced_body_is_byte_identical_to_ordinary_json() -> None:
    blob = Base64Blob("data:image/png;base64,", base64.b64encode(random.Random(3).randbytes(3000)))
    body = {
        "model": "m",
        # User text that looks like a placeholder, quotes, Chinese and control characters.
        "messages": [{"content": ['"@blob-0000000000000000-0@"', '说 "hi"\n\t\u0001'], "image": blob}],
        "images": (Base64Blob("", b"AAEC"), blob),
        "n": 1.5,
        "flag": None,
    }
    assert has_blobs(body) and not has_blobs(plain(body))
    assert encode_json(body) == _dumps(plain(body))
    assert json.loads(encode_json(body))["images"][0] == "AAEC"
    assert encode_json({"a": []}) == b'{"a":[]}'


def test_payloads_that_would_need_escaping_are_refused() -> None:
    with pytest.raises(ValueError, match="base64"):
        encode_json({"x": Base64Blob("", b'AA"},{"role":"system"')})
    with pytest.raises(ValueError, match="base64"):
        encode_json({"x": Base64Blob("", b"AA\\")})
    with pytest.raises(ValueError, match="base64"):
        encode_json({"x": Base64Blob("", "é".encode())})
    with pytest.raises(ValueError, match="unsafe prefix"):
        Base64Blob('data:"image/png;base64,', b"AAEC")


@pytest.mark.parametrize("variant", VARIANTS)
async def test_an_image_goes_out_exactly_once_encoded_in_every_provider_kind(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    image = b"\x89PNG\r\n\x1a\n" + random.Random(7).randbytes(200_000)
    b64 = base64.b64encode(image)
    ref = AttachmentRef(sha256="c" * 64, name="big.png", mime="image/png", size=len(image), kind="image")
    request = ModelRequest(
        model="fake-vision" if variant.startswith("ollama") else "fake-model",
        messages=(Message(role="user", content="Describe 图片", attachments=(ref,)),),
        attachment_inputs={ref.sha256: AttachmentInput("image", "big.png", "image/png", data_b64=b64)},
    )
    server.script({"text": "A picture."})
    events = await collect(make_provider(variant), request)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "A picture."
    body = server.model_requests()[-1].body
    url = "data:image/png;base64," + b64.decode()
    if variant == "responses":
        assert body["input"][-1]["content"] == [
            {"type": "input_text", "text": "Describe 图片"},
            {"type": "input_image", "image_url": url},
        ]
        assert body["stream"] is True
    elif variant == "ollama_native":
        assert body["messages"][-1] == {"role": "user", "content": "Describe 图片", "images": [b64.decode()]}
    else:
        assert body["messages"][-1]["content"] == [
            {"type": "text", "text": "Describe 图片"},
            {"type": "image_url", "image_url": {"url": url}},
        ]
        assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_an_odd_mime_type_in_a_reference_cannot_break_the_body(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    ref = AttachmentRef(sha256="d" * 64, name="x.png", mime='image/png"}', size=3, kind="image")
    request = ModelRequest(
        model="fake-model",
        messages=(Message(role="user", content="hi", attachments=(ref,)),),
        attachment_inputs={ref.sha256: AttachmentInput("image", "x.png", ref.mime, data_b64=b"AAEC")},
    )
    server.script({"text": "ok"})
    await collect(make_provider("chat_completions"), request)
    part = server.model_requests()[-1].body["messages"][-1]["content"][1]
    assert part == {"type": "image_url", "image_url": {"url": "data:application/octet-stream;base64,AAEC"}}

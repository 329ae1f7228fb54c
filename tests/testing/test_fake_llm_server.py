"""The scripted fake LLM server, exercised over real HTTP (httpx2 and a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from app.testing.fake_llm import DEFAULT_TEXT, FakeLLMServer, key_id


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(valid_keys={"sk-good"}) as s:
        yield s


def _chat(server: FakeLLMServer, key: str = "sk-good", **body: object) -> httpx2.Response:
    payload = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}], **body}
    return httpx2.post(
        server.openai_base_url + "/chat/completions", json=payload, headers={"Authorization": f"Bearer {key}"}
    )


def _sse_payloads(text: str) -> list[dict[str, object]]:
    lines = [ln[6:] for ln in text.splitlines() if ln.startswith("data: ")]
    return [json.loads(ln) for ln in lines if ln != "[DONE]"]


def test_empty_queue_answers_with_the_default_text(server: FakeLLMServer) -> None:
    body = _chat(server).json()
    assert body["choices"][0]["message"]["content"] == DEFAULT_TEXT


def test_steps_answer_requests_in_queue_order(server: FakeLLMServer) -> None:
    server.script({"text": "first"}, {"text": "second"})
    answers = [_chat(server).json()["choices"][0]["message"]["content"] for _ in range(3)]
    assert answers == ["first", "second", DEFAULT_TEXT]
    assert [r.step for r in server.requests] == [0, 1, None]


def test_streamed_chat_chunks_text_and_sends_usage_when_asked(server: FakeLLMServer) -> None:
    server.script({"text": "Hello", "chunk_size": 2, "usage": {"input": 7, "output": 3}})
    resp = _chat(server, stream=True, stream_options={"include_usage": True})
    payloads = _sse_payloads(resp.text)
    deltas = [p["choices"][0]["delta"].get("content") for p in payloads if p["choices"]]  # type: ignore[index]
    assert [d for d in deltas if d] == ["He", "ll", "o"]
    assert payloads[-1]["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert resp.text.rstrip().endswith("data: [DONE]")


def test_requests_are_recorded_without_the_key_value(server: FakeLLMServer) -> None:
    _chat(server)
    (req,) = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.body["messages"] == [{"role": "user", "content": "hi"}]
    assert "authorization" not in req.headers
    assert req.has_key and req.key_valid and req.key_id == key_id("sk-good")
    assert "sk-good" not in req.model_dump_json()


def test_a_wrong_key_gets_401_and_consumes_no_step(server: FakeLLMServer) -> None:
    server.script({"text": "kept"})
    resp = _chat(server, key="sk-bad")
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "invalid_api_key"
    assert server.pending_steps == 1


def test_an_unknown_model_gets_openai_model_not_found(server: FakeLLMServer) -> None:
    resp = _chat(server, model="gpt-nope")
    assert resp.status_code == 404
    error = resp.json()["error"]
    assert error["code"] == "model_not_found" and "gpt-nope" in error["message"]
    assert error["type"] == "invalid_request_error"


def test_a_scripted_429_carries_retry_after(server: FakeLLMServer) -> None:
    server.script({"error": 429, "retry_after": 2})
    resp = _chat(server)
    assert resp.status_code == 429
    assert resp.headers["retry-after"] == "2"


def test_disconnect_after_cuts_the_stream_without_finishing(server: FakeLLMServer) -> None:
    server.script({"text": "abcdefghijkl", "chunk_size": 2, "disconnect_after": 2})
    with pytest.raises(httpx2.RemoteProtocolError):
        _chat(server, stream=True)
    assert server.requests[0].aborted and not server.requests[0].completed


def test_ollama_discovery_reports_capabilities_per_model(server: FakeLLMServer) -> None:
    tags = httpx2.get(server.base_url + "/api/tags").json()
    assert [m["name"] for m in tags["models"]] == ["fake-model", "fake-tools", "fake-vision"]
    caps = {
        m: httpx2.post(server.base_url + "/api/show", json={"model": m}).json()["capabilities"]
        for m in ("fake-model", "fake-vision")
    }
    assert caps == {"fake-model": ["completion", "tools"], "fake-vision": ["completion", "vision"]}
    assert httpx2.post(server.base_url + "/api/show", json={"model": "x"}).status_code == 404


def test_ollama_native_chat_streams_ndjson_with_counts(server: FakeLLMServer) -> None:
    server.script(
        {
            "text": "Hi there",
            "chunk_size": 3,
            "usage": {"input": 4, "output": 2},
            "tool_calls": [{"name": "ls", "arguments": {"dir": "."}}],
        }
    )
    resp = httpx2.post(server.base_url + "/api/chat", json={"model": "fake-model", "messages": []})
    lines = [json.loads(ln) for ln in resp.text.splitlines()]
    assert "".join(ln["message"]["content"] for ln in lines) == "Hi there"
    calls = [c for ln in lines for c in ln["message"].get("tool_calls", [])]
    assert calls == [{"function": {"index": 0, "name": "ls", "arguments": {"dir": "."}}}]
    assert lines[-1]["done"] and (lines[-1]["prompt_eval_count"], lines[-1]["eval_count"]) == (4, 2)


def test_reset_forgets_steps_and_requests(server: FakeLLMServer) -> None:
    server.script({"text": "x"})
    _chat(server)
    server.script({"text": "y"})
    server.reset()
    assert server.requests == [] and server.pending_steps == 0


def test_runs_as_a_process_and_takes_a_script_over_the_control_api(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"text": "from file"}]}))
    cmd = [sys.executable, "-m", "app.testing.fake_llm", "--port", "0", "--print-port"]
    proc = subprocess.Popen([*cmd, "--script", str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("PORT=")
        base = f"http://127.0.0.1:{int(line[5:])}"
        queued = httpx2.post(base + "/_control/script", json={"steps": [{"text": "from control"}]})
        assert queued.json() == {"queued": 2}
        payload = {"model": "fake-model", "messages": []}
        auth = {"Authorization": "Bearer k"}
        bodies = [httpx2.post(base + "/v1/chat/completions", json=payload, headers=auth).json() for _ in "ab"]
        answers = [b["choices"][0]["message"]["content"] for b in bodies]
        assert answers == ["from file", "from control"]
        recorded = httpx2.get(base + "/_control/requests").json()["requests"]
        assert [r["path"] for r in recorded] == ["/v1/chat/completions"] * 2
        assert httpx2.post(base + "/_control/reset").json() == {"ok": True}
        assert httpx2.get(base + "/_control/requests").json()["requests"] == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_control_api_rejects_a_malformed_step(server: FakeLLMServer) -> None:
    resp = httpx2.post(server.base_url + "/_control/script", json={"steps": [{"txet": "typo"}]})
    assert resp.status_code == 400


async def test_provider_config_points_a_real_provider_at_the_server(server: FakeLLMServer) -> None:
    from app.contracts.messages import Message
    from app.contracts.provider import ModelRequest, TextDelta
    from app.llm.factory import create_provider

    server.script({"text": "configured"}, {"text": "local"})
    request = ModelRequest(model="fake-model", messages=(Message(role="user", content="hi"),))
    for kind in ("chat_completions", "ollama"):
        provider = create_provider(server.provider_config(kind, api_key="sk-good"))
        try:
            texts = [e.text async for e in provider.stream(request) if isinstance(e, TextDelta)]
        finally:
            await provider.aclose()
        assert "".join(texts) in ("configured", "local")
    assert [r.path for r in server.model_requests()] == ["/v1/chat/completions"] * 2

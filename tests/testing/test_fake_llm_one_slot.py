"""The scripted LLM's one-slot mode (issue 34): like llama.cpp's server with one slot, a new
model request cuts the one being answered — with HTTP 500 before its first chunk, a truncated
stream after it — and the request log says which one was interrupted."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from app.testing.fake_llm import FakeLLMServer

BODY = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}], "stream": True}


def _client(server: FakeLLMServer) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        base_url=server.openai_base_url, trust_env=False, timeout=10, headers={"Authorization": "Bearer sk-x"}
    )


async def test_a_request_cut_while_the_prompt_is_read_gets_a_server_error() -> None:
    with FakeLLMServer(one_slot=True, default_prefill_s=2.0) as server:
        async with _client(server) as client:
            first = asyncio.create_task(client.post("/chat/completions", json=BODY))
            assert await server.wait_until_async(lambda rs: len(rs) == 1)
            server.script({"text": "second"})
            second = await client.post("/chat/completions", json=BODY)
            cut = await first
    assert cut.status_code == 500 and "interrupted by a newer one" in cut.text
    assert second.status_code == 200 and "[DONE]" in second.text
    old, new = server.model_requests()
    assert (old.interrupted, old.completed, old.status) == (True, False, 500)
    assert (new.interrupted, new.completed) == (False, True)


async def test_a_stream_cut_after_its_first_chunk_ends_without_done() -> None:
    with FakeLLMServer(one_slot=True) as server:
        server.script({"text": "slow " * 40, "chunk_size": 5, "delay_s": 0.05}, {"text": "next"})
        async with _client(server) as client, client.stream("POST", "/chat/completions", json=BODY) as stream:
            lines = stream.aiter_lines()
            assert (await anext(lines)).startswith("data: ")  # the answer has begun
            assert (await client.post("/chat/completions", json=BODY)).status_code == 200
            rest: list[str] = []
            with pytest.raises(httpx2.RemoteProtocolError):  # the body ends mid-chunk
                async for line in lines:
                    rest.append(line)
    assert "data: [DONE]" not in rest
    old, new = server.model_requests()
    assert (old.interrupted, old.completed) == (True, False)
    assert new.completed and not new.interrupted


async def test_without_one_slot_requests_run_side_by_side() -> None:
    with FakeLLMServer() as server:
        server.script({"text": "slow " * 10, "chunk_size": 5, "delay_s": 0.05}, {"text": "next"})
        async with _client(server) as client, client.stream("POST", "/chat/completions", json=BODY) as stream:
            lines = stream.aiter_lines()
            assert (await anext(lines)).startswith("data: ")
            assert (await client.post("/chat/completions", json=BODY)).status_code == 200
            rest = [line async for line in lines]
    assert "data: [DONE]" in rest
    assert not any(r.interrupted for r in server.model_requests())

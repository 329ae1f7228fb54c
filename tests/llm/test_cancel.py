"""Cancelling the consumer during a slow stream returns promptly and drops the connection."""

from __future__ import annotations

import asyncio

import pytest

from app.contracts.provider import TextDelta
from app.testing.fake_llm import FakeLLMServer
from tests.llm.conftest import VARIANTS, ProviderMaker, user_request


@pytest.mark.parametrize("variant", VARIANTS)
async def test_cancelling_a_slow_stream_returns_promptly_and_closes_the_connection(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "x" * 400, "chunk_size": 1, "delay_s": 0.05})  # ~20 s if left running
    provider = make_provider(variant)
    first_delta = asyncio.Event()

    async def consume() -> None:
        async for event in provider.stream(user_request()):
            if isinstance(event, TextDelta):
                first_delta.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_delta.wait(), timeout=10)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=1.0)
    assert task in done and task.cancelled()
    assert await asyncio.to_thread(server.wait_for_client_disconnect, 5.0)
    assert not server.model_requests()[0].completed

"""Shared fixtures: a fake LLM server and providers of every kind pointed at it."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from app.contracts.messages import Message
from app.contracts.provider import ModelRequest, Provider, ProviderConfig, ProviderKind, StreamEvent
from app.llm.factory import create_provider
from app.llm.retry import RetryPolicy
from app.testing.fake_llm import FakeLLMServer

API_KEY = "sk-test-SECRET-0123456789abcdef"
VARIANTS = ["chat_completions", "responses", "ollama_v1", "ollama_native"]
OPENAI_VARIANTS = ["chat_completions", "responses"]
OLLAMA_VARIANTS = ["ollama_v1", "ollama_native"]

ProviderMaker = Callable[..., Provider]


def fast_retry(**overrides: Any) -> RetryPolicy:
    """Tiny backoff so retry tests stay fast; the policy logic is the real one."""
    return RetryPolicy(**{"max_retries": 3, "base_delay_s": 0.001, "max_delay_s": 0.005, **overrides})


def provider_config(variant: str, base_url: str, **overrides: Any) -> ProviderConfig:
    if variant in OLLAMA_VARIANTS:
        config = ProviderConfig(
            id="local",
            name="Local Ollama",
            kind=ProviderKind.OLLAMA,
            base_url=base_url,
            ollama_native=variant == "ollama_native",
            timeout_s=10,
        )
    else:
        config = ProviderConfig(
            id="main",
            name="Fake Cloud",
            kind=ProviderKind(variant),
            base_url=base_url + "/v1",
            api_key=API_KEY,
            timeout_s=10,
        )
    return replace(config, **overrides)


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(valid_keys={API_KEY}) as fake:
        yield fake


@pytest.fixture
async def make_provider(server: FakeLLMServer) -> AsyncIterator[ProviderMaker]:
    made: list[Provider] = []

    def make(
        variant: str, *, base_url: str | None = None, retry: RetryPolicy | None = None, **overrides: Any
    ) -> Provider:
        config = provider_config(variant, base_url or server.base_url, **overrides)
        provider = create_provider(config, retry=retry or fast_retry())
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


def user_request(text: str = "hi", model: str = "fake-model", **kw: Any) -> ModelRequest:
    return ModelRequest(model=model, messages=(Message(role="user", content=text),), **kw)


async def collect(provider: Provider, request: ModelRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]

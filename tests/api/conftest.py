"""Fixtures for API tests: a real app on temp dirs, a memory keyring, the fake LLM server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.app import CashCodeApp
from app.api.bootstrap import build_app
from app.contracts.events import AppEvent
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.testing.fake_keyring import MemoryKeyring

VALID_KEY = "sk-test-valid-key-123456"


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    base = tmp_path / "home"
    return AppPaths(base / "data", base / "config", base / "logs", base / "cache")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def secrets() -> Iterator[SecretStore]:
    MemoryKeyring.clear()
    yield SecretStore(backend=MemoryKeyring())
    MemoryKeyring.clear()


class Recorder:
    """Collects bus events; `until` waits (bounded) for a condition, never sleeps."""

    def __init__(self) -> None:
        import asyncio

        self.events: list[AppEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: AppEvent) -> None:
        self.events.append(event)
        self._changed.set()

    def types(self, turn_id: str | None = None) -> list[str]:
        return [e.type for e in self.events if turn_id is None or getattr(e, "turn_id", None) == turn_id]

    async def until(self, predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
        import asyncio

        async with asyncio.timeout(timeout_s):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    async def turn_end(self, turn_id: str, timeout_s: float = 10.0) -> AppEvent:
        ends = ("turn_done", "turn_failed", "turn_cancelled")
        await self.until(lambda: any(t in ends for t in self.types(turn_id)), timeout_s)
        return next(e for e in self.events if getattr(e, "turn_id", None) == turn_id and e.type in ends)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


AppMaker = Callable[..., Awaitable[tuple[CashCodeApp, Recorder]]]


@pytest.fixture
async def make_app(paths: AppPaths, workspace: Path, secrets: SecretStore) -> AsyncIterator[AppMaker]:
    apps: list[CashCodeApp] = []

    async def make(**kw: Any) -> tuple[CashCodeApp, Recorder]:
        # the built-in test MCP servers are on for tests (app/mcp/capability.py ENV_TEST_SERVERS)
        env = {"CASHCODE_MCP_TEST_SERVERS": "1", **kw.pop("env", {})}
        kw.setdefault("workspace", workspace)
        kw.setdefault("secrets", secrets)
        app = build_app(paths, env, **kw)
        recorder = Recorder()
        app.subscribe(recorder)
        apps.append(app)
        return app, recorder

    yield make
    for app in apps:
        await app.aclose()


async def ok(app: CashCodeApp, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    """Invoke and assert success; returns `data`."""
    envelope = await app.invoke(route, payload or {})
    assert envelope["ok"], envelope
    data: dict[str, Any] = envelope["data"]
    return data


async def err(app: CashCodeApp, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await app.invoke(route, payload or {})
    assert not envelope["ok"], envelope
    error: dict[str, Any] = envelope["error"]
    return error


# ---- provider rig: the fake LLM server over real HTTP ----------------------------------------

KINDS = ("chat_completions", "responses", "ollama")


@pytest.fixture
def fake_llm() -> Iterator[Any]:
    from app.testing.fake_llm import FakeLLMServer

    with FakeLLMServer(valid_keys={VALID_KEY}) as server:
        yield server


def fast_retry_factory(config: Any) -> Any:
    """The real providers with tiny backoff, so "retries exhausted" tests stay quick."""
    from app.llm.factory import create_provider
    from app.llm.retry import RetryPolicy

    return create_provider(
        config, retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.02, retry_after_cap_s=0.02)
    )


async def add_provider(app: CashCodeApp, server: Any, kind: str, key: str = VALID_KEY) -> str:
    base = server.base_url if kind == "ollama" else server.openai_base_url
    payload = {"name": f"Fake {kind}", "kind": kind, "base_url": base, "api_key": key}
    view = await ok(app, "providers.save", payload)
    provider_id: str = view["id"]
    return provider_id


async def send(app: CashCodeApp, chat_id: str, text: str, provider_id: str, model: str = "fake-model") -> str:
    ref = await ok(
        app,
        "chat.send",
        {"chat_id": chat_id, "text": text, "model": {"provider_id": provider_id, "model": model}},
    )
    turn_id: str = ref["turn_id"]
    return turn_id

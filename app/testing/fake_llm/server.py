"""`FakeLLMServer`: the fake LLM app served by uvicorn on 127.0.0.1 in a background thread."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

from app.testing.fake_llm.asgi import FakeLLMApp
from app.testing.fake_llm.quirks import parse_quirks
from app.testing.fake_llm.script import Step, parse_steps
from app.testing.fake_llm.state import (
    DEFAULT_CAPABILITIES,
    DEFAULT_MODELS,
    DEFAULT_TEXT,
    FakeLLMConfig,
    FakeState,
    RecordedRequest,
)

if TYPE_CHECKING:
    from app.contracts.provider import ProviderConfig

StepLike = Step | dict[str, Any]


class FakeLLMServer:
    """Scripted OpenAI/Responses/Ollama server. Use as a context manager (or start()/stop()).

    `base_url` is the root (Ollama native); the OpenAI-compatible base is `openai_base_url`.
    `valid_keys=None` accepts any non-empty key on /v1; the key "ollama" is always accepted
    (Ollama's /v1 ignores keys); native Ollama paths need none.
    """

    def __init__(
        self,
        *,
        valid_keys: Iterable[str] | None = None,
        models: Iterable[str] = DEFAULT_MODELS,
        capabilities: dict[str, list[str]] | None = None,
        default_text: str = DEFAULT_TEXT,
        context_length: int = 8192,
        port: int = 0,
        steps: Iterable[StepLike] = (),
        quirks: Iterable[str] = (),
        one_slot: bool = False,
        default_prefill_s: float = 0.0,
        default_delay_s: float = 0.0,
    ) -> None:
        """`quirks`: behaviours of real local servers to reproduce (app/testing/fake_llm/quirks.py)."""
        config = FakeLLMConfig(
            valid_keys=frozenset(valid_keys) if valid_keys is not None else None,
            models=tuple(models),
            capabilities=dict(capabilities if capabilities is not None else DEFAULT_CAPABILITIES),
            default_text=default_text,
            context_length=context_length,
            quirks=parse_quirks(quirks),
            one_slot=one_slot,
            default_prefill_s=default_prefill_s,
            default_delay_s=default_delay_s,
        )
        self.state = FakeState(config)
        self._requested_port = port
        self._socket: socket.socket | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self.port = 0
        if steps:
            self.script(*steps)

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    def start(self, timeout: float = 10.0) -> FakeLLMServer:
        import uvicorn  # lazy: only tests and the fake's process need it

        from app.testing.fake_llm.protocol import FakeH11Protocol

        # IPPROTO_TCP (not 0) so asyncio enables TCP_NODELAY on accepted connections; without it
        # Nagle's algorithm stalls every streamed answer by ~40 ms.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self._requested_port))
        self._socket = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            FakeLLMApp(self.state),
            http=FakeH11Protocol,
            ws="none",
            lifespan="off",
            loop="asyncio",
            log_config=None,
            access_log=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._serve(sock),), name=f"fake-llm-{self.port}", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("fake LLM server failed to start")
        return self

    async def _serve(self, sock: socket.socket) -> None:
        # uvicorn's own serve() polls every 0.1 s and sleeps on shutdown; tests start and
        # stop servers constantly, so run its startup and stop the listeners directly.
        server = self._server
        server.config.load()
        server.lifespan = server.config.lifespan_class(server.config)
        await server.startup(sockets=[sock])
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._ready.set()
        await self._stopping.wait()
        for listener in server.servers:
            listener.close()
        for connection in list(server.server_state.connections):
            connection.transport.close()  # streams in flight see a disconnect and end
        tasks = list(server.server_state.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None
        self._loop = self._stopping = None
        self._ready.clear()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def provider_config(
        self, kind: str = "chat_completions", *, api_key: str | None = "sk-fake-key", **overrides: Any
    ) -> ProviderConfig:
        """A ProviderConfig pointing at this server (`kind`: chat_completions | responses | ollama;
        Ollama gets the root URL and no key). `overrides` go to ProviderConfig."""
        from app.contracts.provider import ProviderConfig, ProviderKind

        provider_kind = ProviderKind(kind)
        ollama = provider_kind is ProviderKind.OLLAMA
        fields: dict[str, Any] = {
            "id": f"fake-{kind}",
            "name": "Fake LLM",
            "kind": provider_kind,
            "base_url": self.base_url if ollama else self.openai_base_url,
            "api_key": None if ollama else api_key,
            **overrides,
        }
        return ProviderConfig(**fields)

    # ---- scripting and assertions ----------------------------------------------------------

    def script(self, *steps: StepLike) -> None:
        """Append steps; each answers one model request, in order."""
        self.state.add_steps(parse_steps(list(steps)))

    def set_quirks(self, *names: str) -> None:
        """Switch to exactly these quirks (or presets such as "llama_cpp"); none: a plain server."""
        self.state.config = replace(self.state.config, quirks=parse_quirks(names))

    def reset(self) -> None:
        """Forget queued steps and recorded requests."""
        self.state.reset()

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every non-control request received so far."""
        return self.state.requests()

    def model_requests(self) -> list[RecordedRequest]:
        """Only the requests that asked a model for an answer."""
        paths = {"/v1/chat/completions", "/v1/responses", "/api/chat"}
        return [r for r in self.requests if r.path in paths]

    @property
    def pending_steps(self) -> int:
        return self.state.pending_steps()

    def wait_until(self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float = 5.0) -> bool:
        """Block (bounded) until `predicate(requests)` holds. Use `asyncio.to_thread` from async code."""
        return self.state.wait_until(predicate, timeout)

    async def wait_until_async(
        self,
        predicate: Callable[[list[RecordedRequest]], bool],
        timeout: float = 5.0,  # noqa: ASYNC109  bounds a worker-thread wait, which cancelling cannot stop
    ) -> bool:
        """`wait_until` for async tests (waits in a worker thread so the test's loop keeps running)."""
        return await asyncio.to_thread(self.state.wait_until, predicate, timeout)

    def wait_for_client_disconnect(self, timeout: float = 5.0) -> bool:
        """True once some streamed response saw its client hang up."""
        return self.wait_until(lambda rs: any(r.client_disconnected for r in rs), timeout)

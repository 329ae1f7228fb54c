"""Thread-safe state of a fake LLM server: configuration, the step queue, recorded requests.

The server's loop runs in another thread (or process), so every access goes through a lock
and readers get copies.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.testing.fake_llm.script import Step

DEFAULT_TEXT = "Hello from the fake LLM."
DEFAULT_MODELS = ("fake-model", "fake-tools", "fake-vision")
DEFAULT_CAPABILITIES: dict[str, list[str]] = {
    "fake-model": ["completion", "tools"],
    "fake-tools": ["completion", "tools"],
    "fake-vision": ["completion", "vision"],
}


def key_id(key: str) -> str:
    """A short, non-reversible label for an API key, so tests can tell keys apart."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class FakeLLMConfig:
    valid_keys: frozenset[str] | None = None  # None: any non-empty key is accepted
    models: tuple[str, ...] = DEFAULT_MODELS
    capabilities: dict[str, list[str]] = field(default_factory=lambda: dict(DEFAULT_CAPABILITIES))
    default_text: str = DEFAULT_TEXT
    context_length: int = 8192
    # Behaviours of real local servers to reproduce (app/testing/fake_llm/quirks.py).
    quirks: frozenset[str] = frozenset()
    # llama.cpp-like modes (issue 34): one slot that a new request interrupts (one_slot.py), and
    # a slow model's default answer (scaled for tests): silence before it (the prompt being
    # read) and a delay per chunk.
    one_slot: bool = False
    default_prefill_s: float = 0.0
    default_delay_s: float = 0.0

    def capabilities_of(self, model: str) -> list[str]:
        return list(self.capabilities.get(model, ["completion"]))


class RecordedRequest(BaseModel):
    """One request as the server saw it. The Authorization value is never stored."""

    method: str
    path: str
    headers: dict[str, str]
    has_key: bool
    key_valid: bool
    key_id: str | None
    body: Any
    step: int | None = None  # index of the scripted step that answered (None: default/none)
    status: int | None = None
    completed: bool = False  # the whole response was sent
    client_disconnected: bool = False  # the client went away before the response finished
    aborted: bool = False  # the server cut the stream on purpose (disconnect_after)
    interrupted: bool = False  # one-slot mode: a newer request cut this answer short


class FakeState:
    def __init__(self, config: FakeLLMConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._steps: deque[Step] = deque()
        self._requests: list[RecordedRequest] = []
        self._step_counter = 0

    def add_steps(self, steps: list[Step]) -> None:
        with self._lock:
            self._steps.extend(steps)

    def next_step(self) -> tuple[Step, int | None]:
        """The next scripted step and its index, or the default answer when the queue is empty."""
        with self._lock:
            if self._steps:
                index = self._step_counter
                self._step_counter += 1
                return self._steps.popleft(), index
        config = self.config
        return Step(
            text=config.default_text, delay_s=config.default_delay_s, hang_s=config.default_prefill_s
        ), None

    def pending_steps(self) -> int:
        with self._lock:
            return len(self._steps)

    def reset(self) -> None:
        with self._lock:
            self._steps.clear()
            self._requests.clear()
            self._step_counter = 0
            self._changed.notify_all()

    def record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._requests.append(request)
            self._changed.notify_all()
            return len(self._requests) - 1

    def update(self, index: int, **fields: Any) -> None:
        with self._lock:
            if index < len(self._requests):
                self._requests[index] = self._requests[index].model_copy(update=fields)
                self._changed.notify_all()

    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r.model_copy(deep=True) for r in self._requests]

    def wait_until(self, predicate: Any, timeout: float) -> bool:
        """Block until `predicate(requests)` is true or `timeout` passes; returns the last result."""
        with self._changed:
            return bool(self._changed.wait_for(lambda: predicate(list(self._requests)), timeout))

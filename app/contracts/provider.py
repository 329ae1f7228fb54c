"""The provider interface: every provider kind streams the same typed events.

Core code knows providers only through `Provider`; one module per kind implements it
(`chat_completions`, `responses`, `ollama`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

from app.contracts.messages import Message, ToolCall, ToolSpec


class ProviderKind(StrEnum):
    CHAT_COMPLETIONS = "chat_completions"
    RESPONSES = "responses"
    OLLAMA = "ollama"


# The `model_limits` key that applies to every model of a provider (a model's own entry wins).
ALL_MODELS = "*"


@dataclass(frozen=True)
class ModelLimits:
    """Per-model settings of a provider profile; None = the server's own default."""

    temperature: float | None = None
    max_output_tokens: int | None = None
    # The model's context window in tokens, as the user set it (consolidation budgets by it).
    context_length: int | None = None

    def over(self, base: ModelLimits) -> ModelLimits:
        """These limits, with what they leave unset taken from `base`."""
        return ModelLimits(
            temperature=self.temperature if self.temperature is not None else base.temperature,
            max_output_tokens=(
                self.max_output_tokens if self.max_output_tokens is not None else base.max_output_tokens
            ),
            context_length=self.context_length if self.context_length is not None else base.context_length,
        )


@dataclass(frozen=True)
class ProviderConfig:
    """Everything needed to talk to one provider. `api_key` is resolved from the keyring by
    the caller and must never be logged or returned by an API."""

    id: str
    kind: ProviderKind
    base_url: str
    api_key: str | None = None
    name: str = ""
    timeout_s: float = 60.0
    max_retries: int = 3
    # Ollama only: use native /api/chat instead of its OpenAI-compatible /v1.
    ollama_native: bool = False
    # Seconds from the response headers to the first answer event (None: only `timeout_s`).
    first_token_timeout_s: float | None = None
    # model id (or ALL_MODELS) -> its limits.
    model_limits: Mapping[str, ModelLimits] = field(default_factory=dict)
    # Model calls at once: None = the default (1 for a local provider, no limit for a remote
    # one; app/llm/local.py), 0 = no limit.
    parallel_requests: int | None = None
    # The lean request (core tools up front, the rest through tool_search): None = the default
    # (on for a local provider, off for a remote one).
    lean_tools: bool | None = None

    def limits_for(self, model: str) -> ModelLimits:
        """The limits of `model`: its own entry over the provider-wide one."""
        base = self.model_limits.get(ALL_MODELS, ModelLimits())
        own = self.model_limits.get(model)
        return own.over(base) if own is not None else base


@dataclass(frozen=True)
class ModelInfo:
    id: str
    supports_tools: bool | None = None  # None = unknown
    supports_vision: bool | None = None
    context_length: int | None = None


@dataclass(frozen=True)
class AttachmentInput:
    """What the model receives for one attached file (by its sha256 in `Message.attachments`):
    an image as base64 text (ASCII bytes, spliced into the request body as they are; see
    app/llm/json_body.py), or text (text files, and the text of PDFs)."""

    kind: Literal["image", "text"]
    name: str
    mime: str
    data_b64: bytes = b""
    text: str = ""


@dataclass(frozen=True)
class ModelRequest:
    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    stream: bool = True
    temperature: float | None = None
    max_output_tokens: int | None = None
    # sha256 -> content, for the attachments of `messages` (filled in before the request).
    attachment_inputs: Mapping[str, AttachmentInput] = field(default_factory=dict)


# ---- normalised stream events -------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True)
class ReasoningDelta:
    text: str
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True)
class ToolCallStarted:
    index: int
    call_id: str
    name: str
    kind: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ToolCallReady:
    """A complete tool call (arguments fully accumulated)."""

    call: ToolCall
    kind: Literal["tool_call_ready"] = "tool_call_ready"


@dataclass(frozen=True)
class UsageReport:
    input_tokens: int | None
    output_tokens: int | None
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True)
class StreamDone:
    finish_reason: str | None = None
    kind: Literal["done"] = "done"


StreamEvent = TextDelta | ReasoningDelta | ToolCallStarted | ToolCallReady | UsageReport | StreamDone


# ---- errors -------------------------------------------------------------------------------

ProviderErrorCode = Literal[
    "no_api_key",
    "auth",
    "not_found",
    "model_not_found",
    "rate_limit",
    "server",
    "unreachable",
    "ollama_not_running",
    "context_length",
    "bad_request",
    "disconnected",
    "timeout",
    "bad_response",  # the server answered, but not with a model reply (an HTML page, garbage)
    "no_responses_api",  # the server answered 404 at /responses: it speaks Chat Completions only
]


@dataclass
class ProviderError(Exception):
    """A provider failure with a message a user can act on (SPEC S2.6)."""

    code: ProviderErrorCode
    message: str
    status: int | None = None
    retry_after_s: float | None = None
    provider_id: str = ""
    details: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


class Provider(Protocol):
    """One configured provider profile."""

    config: ProviderConfig

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield normalised events. Raises ProviderError. Cancelling the consuming task must
        close the underlying HTTP stream promptly."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...

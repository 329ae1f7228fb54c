"""`create_provider(config)`: the one place that picks a provider class for a profile.

Provider modules are imported here lazily, and they import openai/httpx2 lazily too, so
importing this module stays cheap for CLI start-up.
"""

from __future__ import annotations

from app.contracts.provider import Provider, ProviderConfig, ProviderKind
from app.llm.retry import RetryPolicy


def create_provider(config: ProviderConfig, *, retry: RetryPolicy | None = None) -> Provider:
    """`retry` overrides the backoff policy (tests use tiny delays); by default it follows
    `config.max_retries`."""
    if config.kind is ProviderKind.CHAT_COMPLETIONS:
        from app.llm.chat_completions import ChatCompletionsProvider

        return ChatCompletionsProvider(config, retry=retry)
    if config.kind is ProviderKind.RESPONSES:
        from app.llm.responses import ResponsesProvider

        return ResponsesProvider(config, retry=retry)
    if config.kind is ProviderKind.OLLAMA:
        from app.llm.ollama import OllamaProvider

        return OllamaProvider(config, retry=retry)
    raise ValueError(f"unknown provider kind: {config.kind!r}")

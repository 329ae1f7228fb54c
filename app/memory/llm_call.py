"""One plain model call (no tools) whose whole text answer is returned: the summary and Dream
requests. Provider errors propagate as `ProviderError`; cancellation closes the stream."""

from __future__ import annotations

from collections.abc import Sequence

from app.contracts.messages import Message
from app.contracts.provider import ModelRequest, Provider, TextDelta


async def complete(provider: Provider, model: str, messages: Sequence[Message]) -> str:
    request = ModelRequest(model=model, messages=tuple(messages), stream=True)
    parts: list[str] = []
    async for event in provider.stream(request):
        if isinstance(event, TextDelta):
            parts.append(event.text)
    return "".join(parts)


def strip_fence(text: str) -> str:
    """Models sometimes wrap a whole document in ``` fences; the document is what is inside."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and body.count("\n") >= 1:
        body = body.split("\n", 1)[1].rsplit("```", 1)[0]
    return body.strip()

"""A Provider wrapper that fills `ModelRequest.attachment_inputs` from the attachment store, so
every provider kind can send the files of the conversation's user messages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

from app.attachments.inputs import AttachmentResolver
from app.contracts.provider import ModelInfo, ModelRequest, Provider, StreamEvent


class AttachmentProvider:
    def __init__(self, inner: Provider, resolver: AttachmentResolver) -> None:
        self._inner = inner
        self._resolver = resolver
        self.config = inner.config

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if any(m.attachments for m in request.messages):
            # File reads and base64 off the event loop: a 10 MB image must not stall other chats.
            inputs = await asyncio.to_thread(self._resolver.for_messages, request.messages)
            request = replace(request, attachment_inputs=inputs)
        async for event in self._inner.stream(request):
            yield event

    async def list_models(self) -> list[ModelInfo]:
        return await self._inner.list_models()

    async def aclose(self) -> None:
        # The wrapped provider is shared and closed by ProviderService.
        return None

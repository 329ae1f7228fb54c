"""What the Chat Completions and Responses providers share: key handling, retries, error
mapping, stream assembly and prompt cancellation. Each subclass supplies only the SDK call and
how its results become our events."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from app.contracts.provider import (
    ModelInfo,
    ModelRequest,
    ProviderConfig,
    ProviderError,
    StreamDone,
    StreamEvent,
)
from app.llm import errors
from app.llm.errors import ErrorContext
from app.llm.limits import with_limits
from app.llm.openai_client import LazyOpenAIClient, effective_api_key, explain_keyless
from app.llm.retry import RetryPolicy, retrying
from app.llm.server_quirks import LearnedQuirks

_log = logging.getLogger(__name__)

# Content types a server may (wrongly) give a valid event stream: it is read by its content.
_LENIENT_STREAM_TYPES = ("text/plain", "application/octet-stream")

if TYPE_CHECKING:
    from openai import AsyncOpenAI


def as_is(kwargs: dict[str, Any], *bulky: str) -> dict[str, Any]:
    """Move the bulky fields (messages, input, tools) into `extra_body`, which the SDK sends
    without its per-field TypedDict transform: that walk cost ~1.5 ms per message (600 ms for a
    400-message context, bench/bench_branches.py), and our wire dicts already have the API's
    shape. The JSON sent is the same."""
    raw = {k: kwargs.pop(k) for k in bulky if k in kwargs}
    return {**kwargs, "extra_body": raw}


class Assembler(Protocol):
    """Turns SDK stream items into our events; `finished` once the server said it was done."""

    @property
    def finished(self) -> bool: ...

    def feed(self, item: Any) -> list[StreamEvent]: ...

    def done(self) -> StreamDone: ...


class SdkStream(Protocol):
    def __aiter__(self) -> AsyncIterator[Any]: ...

    async def close(self) -> None: ...


class OpenAIProvider(ABC):
    """`base_url` is the OpenAI-compatible root (ending in /v1). `ollama=True` words errors for
    Ollama and needs no key (its /v1 ignores the key, but the SDK wants one)."""

    _path = ""  # the API path of a model call below the base URL (for error texts)

    def __init__(
        self,
        config: ProviderConfig,
        *,
        retry: RetryPolicy | None = None,
        base_url: str | None = None,
        ollama: bool = False,
    ) -> None:
        self.config = config
        self._base_url = (base_url or config.base_url).rstrip("/")
        self._ollama = ollama
        if ollama and not config.api_key:
            self._api_key = "ollama"  # Ollama's /v1 requires some key and ignores it
        else:
            self._api_key = effective_api_key(config.api_key, self._base_url)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)
        self._client = LazyOpenAIClient(self._base_url, self._api_key, config.timeout_s)
        # What this server was found to refuse (app/llm/server_quirks.py); kept while this
        # provider object lives, i.e. per profile and process.
        self._learned = LearnedQuirks()

    # ---- what a subclass supplies ---------------------------------------------------------------

    @abstractmethod
    async def _create(self, client: AsyncOpenAI, request: ModelRequest, *, stream: bool) -> Any:
        """The SDK call: a whole result (stream=False) or an SDK stream."""

    @abstractmethod
    def _whole(self, result: Any) -> Sequence[StreamEvent]:
        """Events of a non-streamed result."""

    @abstractmethod
    def _assembler(self, ctx: ErrorContext) -> Assembler: ...

    def _adapt(self, err: ProviderError, request: ModelRequest, *, stream: bool) -> str | None:
        """After a refused call: the change (now switched on) to send it once more with, or None."""
        return None

    def _streams(self, request: ModelRequest) -> bool:
        """Whether this call is streamed (a server may have refused streaming with tools)."""
        return request.stream

    def _adapt_empty_stream(self, request: ModelRequest) -> bool:
        """A streamed request came back as an empty stream: True when whole answers are now asked
        for instead (learned for this provider)."""
        return False

    # ---- the shared part -------------------------------------------------------------------------

    def _ctx(self, model: str | None = None) -> ErrorContext:
        ctx = ErrorContext.for_config(self.config, model, ollama=self._ollama, base_url=self._base_url)
        return ctx.at(self._path)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        request = with_limits(request, self.config)
        if not self._api_key:
            raise errors.no_api_key(self._ctx(request.model))
        try:
            # Each change of form is tried once per request, across its retries (decision 300).
            tried: dict[str, ProviderError] = {}
            attempts = retrying(lambda: self._attempt(request, tried), self._retry)
            async with aclosing(attempts) as events:
                async for event in events:
                    yield event
        except ProviderError as exc:
            raise explain_keyless(exc, self._api_key, self._ctx(request.model)) from exc.__cause__

    async def _attempt(
        self, request: ModelRequest, tried: dict[str, ProviderError]
    ) -> AsyncGenerator[StreamEvent, None]:
        ctx = self._ctx(request.model)
        stream, result = await self._call(request, ctx, tried)
        if stream:
            sdk_stream: SdkStream = result
            lenient = await _check_event_stream(sdk_stream, ctx)
            assembler = self._assembler(ctx)
            received = _Count()
            async with aclosing(self._read(sdk_stream, assembler, ctx, received)) as read:
                async for event in read:
                    yield event
            if assembler.finished:
                yield assembler.done()
                return
            if lenient is not None:
                # A stream sent as text/plain that held no event: it was no event stream at all.
                raise errors.bad_response(ctx, f"a {lenient} body that is not an event stream")
            # An event stream that ended before its first event, with tools offered: a server
            # that cannot stream tool calls (llama-cpp-python answers 200 and then closes the
            # stream empty). Nothing reached the consumer, so the whole form is safe to send.
            if received.n or not self._adapt_empty_stream(request):
                # The body ended cleanly but the server never said it was done: never pass that
                # off as a complete answer.
                raise errors.disconnected(ctx)
            _log.info(
                "provider %s closed a streamed request with tools empty; asking for whole answers",
                ctx.provider_label,
            )
            stream, result = await self._call(request, ctx, tried)
            if stream:
                raise errors.disconnected(ctx)
        try:
            events = list(self._whole(result))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            raise errors.bad_response(ctx, "a reply that could not be read", str(exc)) from None
        for event in events:
            yield event

    async def _call(
        self, request: ModelRequest, ctx: ErrorContext, tried: dict[str, ProviderError]
    ) -> tuple[bool, Any]:
        """The SDK call, sent once more in the form the server takes when it refused ours
        (app/llm/server_quirks.py; `tried`: the changes tried for this request and the error
        each answered). Returns whether the result is a stream, and the result."""
        import openai

        client = self._client.get()
        while True:
            stream = self._streams(request)
            try:
                return stream, await self._create(client, request, stream=stream)
            except openai.APIError as exc:
                err = errors.from_openai(exc, ctx, after_headers=False)
                for earlier, before in tried.items():
                    if (before.status, before.details.get("server_message")) == (
                        err.status,
                        err.details.get("server_message"),
                    ):
                        self._learned.unlearn(earlier)  # the same refusal: that change did not help
                change = self._adapt(err, request, stream=stream)
                if change is None or change in tried:
                    raise err from errors.safe_cause(exc)
                _log.info(
                    "provider %s refused a request (%s); sending it again with %s",
                    ctx.provider_label,
                    err.status,
                    change,
                )
                tried[change] = err
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                # The SDK could not parse the body (an HTML page, broken JSON): not a model reply.
                raise errors.bad_response(ctx, "a body that could not be read", str(exc)) from None

    async def _read(
        self, sdk_stream: SdkStream, assembler: Assembler, ctx: ErrorContext, received: _Count
    ) -> AsyncGenerator[StreamEvent, None]:
        """The stream's events. The first-token timeout runs from the headers to the first event."""
        import openai

        limit = self.config.first_token_timeout_s
        try:
            async with asyncio.timeout(limit) as guard:
                async for item in sdk_stream:
                    received.n += 1
                    events = assembler.feed(item)
                    if events and guard.when() is not None:
                        guard.reschedule(None)  # disarmed before anything reaches the consumer
                    for event in events:
                        yield event
        except TimeoutError:
            raise errors.first_token_timeout(ctx, limit or 0) from None
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=True) from errors.safe_cause(exc)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            # Garbage inside the event stream (not JSON, wrong shapes).
            raise errors.bad_response(ctx, "an event stream that could not be read", str(exc)) from None
        finally:
            # Also on cancellation: drop the HTTP connection so the server stops generating.
            await sdk_stream.close()

    async def list_models(self) -> list[ModelInfo]:
        return await self._client.list_models(self._ctx())

    async def aclose(self) -> None:
        await self._client.aclose()


@dataclass
class _Count:
    """How many stream items arrived (an empty stream is told from a dropped one)."""

    n: int = 0


async def post_json(
    client: AsyncOpenAI, path: str, body: dict[str, Any], *, cast_to: type[Any], stream_cls: type[Any]
) -> Any:
    """What `create()` sends, for a body with large base64 payloads (images): serialised by
    app/llm/json_body.py, which splices the payloads in instead of re-encoding them, and sent
    through the SDK's generic `post` (same client, headers, auth, errors and stream types)."""
    from app.llm.json_body import encode_json

    return await client.post(
        path,
        content=encode_json(body),
        cast_to=cast_to,
        stream=bool(body.get("stream")),
        stream_cls=stream_cls,
        options={"security": {"bearer_auth": True}},
    )


async def _check_event_stream(sdk_stream: SdkStream, ctx: ErrorContext) -> str | None:
    """A streamed request must be answered with an event stream. A plain-text type is read by
    its content (some servers serve valid SSE as text/plain; returns that type, so an empty
    read can be told apart). Anything else (a proxy's HTML login page with status 200) would
    parse as an empty stream: say what came back."""
    response = getattr(sdk_stream, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    content_type = str(headers.get("content-type", ""))
    bare = content_type.split(";", 1)[0].strip().lower()
    if bare in ("text/event-stream", ""):
        return None
    if bare in _LENIENT_STREAM_TYPES:
        return bare
    try:
        body = await response.aread()  # type: ignore[union-attr]
    except Exception:  # the body is only a sample for the message
        body = b""
    finally:
        await sdk_stream.close()
    sample = body[:200].decode("utf-8", "replace")
    raise errors.bad_response(ctx, errors.describe_body(content_type, body), sample)

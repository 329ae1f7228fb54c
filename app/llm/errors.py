"""Turn SDK / HTTP failures into `ProviderError`s a user can act on (SPEC S2.6).

Every message is built here, from the error context, and scrubbed of the API key: servers
sometimes echo the key back, and exception text is never passed through unscrubbed.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from app.contracts.provider import ProviderConfig, ProviderError, ProviderErrorCode

if TYPE_CHECKING:
    import openai

_log = logging.getLogger(__name__)

# Where a user changes a provider's timeouts; error texts name exactly these settings.
TIMEOUT_SETTING = (
    "the provider's Timeout (Settings → Providers, or `cashcode config provider set {id} --timeout SECONDS`)"
)
FIRST_TOKEN_SETTING = (
    "the provider's First-token timeout (Settings → Providers, or "
    "`cashcode config provider set {id} --first-token-timeout SECONDS`)"
)
SHOWN_SERVER_MESSAGE = 300  # characters of the server's own message put into an error text

_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-]{4,}")
_CONTEXT_HINTS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "too many tokens",
    "prompt is too long",
    "reduce the length",
)


@dataclass(frozen=True)
class ErrorContext:
    """What a message needs to name: the provider, its host, the model. `secret` is only used
    to scrub text and is never put into a message."""

    provider_id: str
    provider_label: str
    base_url: str
    model: str | None = None
    secret: str | None = None
    ollama: bool = False
    timeout_s: float | None = None
    path: str = ""  # the API path called below `base_url` ("/chat/completions"), for 404 hints

    def at(self, path: str) -> ErrorContext:
        return replace(self, path=path)

    @property
    def url(self) -> str:
        """The URL that was called, without any user:password@ (for messages)."""
        parts = urlsplit(self.base_url)
        return self.host + parts.path.rstrip("/") + self.path

    @classmethod
    def for_config(
        cls,
        config: ProviderConfig,
        model: str | None = None,
        *,
        ollama: bool = False,
        base_url: str | None = None,
    ) -> ErrorContext:
        return cls(
            provider_id=config.id,
            provider_label=config.name or config.id,
            base_url=base_url or config.base_url,
            model=model,
            secret=config.api_key,
            ollama=ollama,
            timeout_s=config.timeout_s,
        )

    @property
    def host(self) -> str:
        parts = urlsplit(self.base_url)
        # Drop any user:password@ and path; the scheme and host:port are what a user checks.
        host = parts.hostname or self.base_url
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}" if parts.scheme else host


def scrub(text: str, secret: str | None) -> str:
    if secret:
        text = text.replace(secret, "***")
    return _KEYLIKE.sub(r"\1***", text)


def shortened(server_message: str, secret: str | None, limit: int = SHOWN_SERVER_MESSAGE) -> str:
    """The server's own message on one line, scrubbed of keys and cut to `limit` characters."""
    text = " ".join(scrub(server_message, secret).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_error(
    ctx: ErrorContext,
    code: ProviderErrorCode,
    message: str,
    *,
    status: int | None = None,
    retry_after_s: float | None = None,
    server_message: str | None = None,
) -> ProviderError:
    details = {"host": ctx.host, "provider": ctx.provider_label}
    if ctx.model:
        details["model"] = ctx.model
    if status is not None:
        details["status"] = str(status)
    if ctx.timeout_s:
        details["timeout_s"] = f"{ctx.timeout_s:g}"
    if ctx.path:
        details["url"] = ctx.url
    if server_message:
        details["server_message"] = scrub(server_message, ctx.secret)[:500]
        _log.debug(
            "provider %s (%s): %s%s; the server said: %s",
            ctx.provider_label,
            ctx.url,
            code,
            f" (HTTP {status})" if status is not None else "",
            shortened(server_message, ctx.secret, 500),
        )
    return ProviderError(
        code=code,
        message=scrub(message, ctx.secret),
        status=status,
        retry_after_s=retry_after_s,
        provider_id=ctx.provider_id,
        details=details,
    )


def no_api_key(ctx: ErrorContext) -> ProviderError:
    return make_error(
        ctx,
        "no_api_key",
        f"No API key for provider {ctx.provider_label}. Add one in "
        "Settings → Providers or set OPENAI_API_KEY.",
    )


def is_context_overflow(code: str | None, message: str) -> bool:
    lowered = message.lower()
    return code == "context_length_exceeded" or any(h in lowered for h in _CONTEXT_HINTS)


def _model_missing(ctx: ErrorContext, status: int | None, server_message: str) -> ProviderError:
    model = ctx.model or "?"
    if ctx.ollama:
        text = (
            f"Model '{model}' is not installed in Ollama at {ctx.host}. Run `ollama pull {model}`, "
            "or pick another model."
        )
    else:
        text = (
            f"Model '{model}' is not available from provider {ctx.provider_label}. Run `cashcode models` "
            "(or open the model picker) to see the models it offers."
        )
    return make_error(ctx, "model_not_found", text, status=status, server_message=server_message)


def from_status(
    ctx: ErrorContext,
    status: int,
    server_message: str,
    code: str | None = None,
    retry_after_s: float | None = None,
) -> ProviderError:
    """Map an HTTP error status (with the server's own message and error code) to a ProviderError."""
    label = ctx.provider_label
    sm = server_message
    if status in (401, 403):
        text = (
            f"Provider {label} rejected the API key (HTTP {status}). Check the key in Settings → Providers."
        )
        return make_error(ctx, "auth", text, status=status, server_message=sm)
    if status == 404:
        if code == "model_not_found" or (ctx.model and ctx.model in sm) or "model" in sm.lower():
            return _model_missing(ctx, status, sm)
        return not_found(ctx, sm)
    if status == 429:
        return rate_limited(ctx, sm, retry_after_s, status)
    if is_context_overflow(code, sm):
        return context_too_long(ctx, sm, status)
    said = shortened(sm, ctx.secret)
    if status >= 500:
        text = (
            f"Provider {label} had a server error (HTTP {status})"
            + (f" — the server said: {said.rstrip('.')}" if said else "")
            + ". Try again in a moment."
        )
        return make_error(ctx, "server", text, status=status, server_message=sm)
    text = f"Provider {label} rejected the request (HTTP {status}): {said or 'no details'}"
    return make_error(ctx, "bad_request", text, status=status, server_message=sm)


def not_found(ctx: ErrorContext, server_message: str) -> ProviderError:
    """A 404 that is not about a model: name the URL called, and the likely cause."""
    label = ctx.provider_label
    if ctx.path == "/responses":
        text = (
            f"Provider {label} has no Responses API: {ctx.url} answered 404 Not Found. Set its API "
            "kind to Chat Completions (Settings → Providers, or --api-mode chat_completions)."
        )
        return make_error(ctx, "no_responses_api", text, status=404, server_message=server_message)
    root = urlsplit(ctx.base_url).path.rstrip("/")
    hint = (
        "Check the base URL and that this server offers the OpenAI API at it."
        if root.endswith("/v1")
        else "Check the base URL (OpenAI-compatible servers usually end in /v1)."
    )
    text = f"Provider {label} answered 404 Not Found for {ctx.url}. {hint}"
    return make_error(ctx, "not_found", text, status=404, server_message=server_message)


def rate_limited(
    ctx: ErrorContext, server_message: str, retry_after_s: float | None, status: int | None = 429
) -> ProviderError:
    text = f"Provider {ctx.provider_label} is rate limiting requests. Wait a minute and try again."
    return make_error(
        ctx, "rate_limit", text, status=status, retry_after_s=retry_after_s, server_message=server_message
    )


def context_too_long(ctx: ErrorContext, server_message: str, status: int | None = None) -> ProviderError:
    text = (
        f"The conversation is too long for model '{ctx.model}'. Start a new chat, or remove large "
        "attachments or tool output."
    )
    return make_error(ctx, "context_length", text, status=status, server_message=server_message)


def stream_failure(ctx: ErrorContext, code: str | None, server_message: str) -> ProviderError:
    """An error reported inside a stream (Responses `error`/`response.failed`, an SSE error chunk)."""
    if code in ("rate_limit_exceeded", "rate_limit"):
        return rate_limited(ctx, server_message, None, None)
    if is_context_overflow(code, server_message):
        return context_too_long(ctx, server_message)
    if code == "model_not_found":
        return _model_missing(ctx, None, server_message)
    said = shortened(server_message, ctx.secret)
    text = f"Provider {ctx.provider_label} failed while answering: {said or code or 'unknown error'}"
    return make_error(ctx, "server", text, server_message=server_message)


def connection_failed(ctx: ErrorContext, *, timeout: bool, after_headers: bool) -> ProviderError:
    """A transport failure. `after_headers`: the response had started, so the stream was cut."""
    if timeout:
        limit = f" within {ctx.timeout_s:g} s" if ctx.timeout_s else ""
        text = (
            f"Provider {ctx.provider_label} at {ctx.host} did not answer{limit}. Try again, or raise "
            + TIMEOUT_SETTING.format(id=ctx.provider_id)
            + "."
        )
        error = make_error(ctx, "timeout", text)
        error.details["setting"] = "timeout_s"
        return error
    if after_headers:
        text = (
            f"The connection to provider {ctx.provider_label} dropped before the answer finished. Try again."
        )
        return make_error(ctx, "disconnected", text)
    return unreachable(ctx)


def first_token_timeout(ctx: ErrorContext, limit_s: float) -> ProviderError:
    """The server answered (headers) but sent no part of an answer within `limit_s`."""
    text = (
        f"Provider {ctx.provider_label} at {ctx.host} connected but sent no answer within {limit_s:g} s. "
        "Try again, or raise " + FIRST_TOKEN_SETTING.format(id=ctx.provider_id) + "."
    )
    error = make_error(ctx, "timeout", text)
    error.details.update(timeout_s=f"{limit_s:g}", setting="first_token_timeout_s")
    return error


def unreachable(ctx: ErrorContext) -> ProviderError:
    if ctx.ollama:
        text = (
            f"Ollama is not running at {ctx.host}. Start Ollama with `ollama serve` (or open the "
            "Ollama app), then try again."
        )
        return make_error(ctx, "ollama_not_running", text)
    text = (
        f"Cannot reach {ctx.host} (provider {ctx.provider_label}). Check the base URL and your "
        "network connection."
    )
    return make_error(ctx, "unreachable", text)


def disconnected(ctx: ErrorContext) -> ProviderError:
    return connection_failed(ctx, timeout=False, after_headers=True)


def retry_after_seconds(headers: object) -> float | None:
    """Parse `retry-after-ms` / `Retry-After` (seconds; HTTP dates are ignored)."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


def from_openai(exc: openai.APIError, ctx: ErrorContext, *, after_headers: bool) -> ProviderError:
    """Map an openai SDK exception. `after_headers`: raised while reading a started stream."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return connection_failed(ctx, timeout=True, after_headers=after_headers)
    if isinstance(exc, openai.APIConnectionError):
        return connection_failed(ctx, timeout=False, after_headers=after_headers)
    server_message = _server_message(exc)
    if isinstance(exc, openai.APIStatusError):
        retry_after = retry_after_seconds(exc.response.headers)
        return from_status(ctx, exc.status_code, server_message, exc.code, retry_after)
    return stream_failure(ctx, exc.code, server_message)


def safe_cause(exc: BaseException) -> BaseException | None:
    """The exception to chain a ProviderError to. SDK status errors carry the server's text,
    which may echo the API key, so they are not chained (a logged traceback would show it)."""
    import openai

    if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
        return None
    return exc


def _server_message(exc: openai.APIError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        if isinstance(body.get("detail"), str):  # FastAPI-based servers (llama-cpp-python)
            return str(body["detail"])
    return exc.message


def bad_response(
    ctx: ErrorContext, what: str, sample: str = "", *, instead_of: str = "a model reply"
) -> ProviderError:
    """The server answered, but not like a model API: say what came back and what to check."""
    shown = " ".join(sample.split())[:200]
    text = (
        f"Provider {ctx.provider_label} at {ctx.host} answered with {what} instead of {instead_of}"
        + (f" (it began: {shown!r})" if shown else "")
        + ". Check the base URL: a proxy, login page or a server that is not OpenAI-compatible "
        "may be answering."
    )
    return make_error(ctx, "bad_response", text, server_message=shown or None)


def describe_body(content_type: str, body: bytes) -> str:
    """Words for what a non-API answer looked like: an HTML page (with its title) or its type."""
    text = body[:4096].decode("utf-8", "replace")
    lowered = text.lower()
    if "html" in content_type.lower() or "<html" in lowered or "<!doctype html" in lowered:
        start, end = lowered.find("<title>"), lowered.find("</title>")
        title = text[start + 7 : end].strip() if 0 <= start < end else ""
        return f"an HTML page{f' titled {title!r}' if title else ''}"
    return f"a {content_type or 'response without a content type'}"

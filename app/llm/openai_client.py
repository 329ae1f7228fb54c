"""Lazy AsyncOpenAI construction: importing openai costs ~0.4 s, so only a real call pays it."""

from __future__ import annotations

import ipaddress
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.contracts.provider import ModelInfo, ProviderError
from app.llm import errors
from app.llm.errors import ErrorContext

if TYPE_CHECKING:
    from openai import AsyncOpenAI


# Local servers (LM Studio, llama.cpp, vLLM on this machine) usually need no key, but the SDK
# insists on one; remote hosts without a key fail early with an actionable `no_api_key`.
LOCAL_PLACEHOLDER_KEY = "not-needed"


def effective_api_key(api_key: str | None, base_url: str) -> str:
    """The configured key, or a placeholder for a key-less server on a loopback address."""
    if api_key:
        return api_key
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost":
        return LOCAL_PLACEHOLDER_KEY
    try:
        return LOCAL_PLACEHOLDER_KEY if ipaddress.ip_address(host).is_loopback else ""
    except ValueError:
        return ""


def explain_keyless(exc: ProviderError, api_key: str, ctx: ErrorContext) -> ProviderError:
    """A local server that rejected our placeholder wants a real key: say "no key", not "bad key"."""
    if exc.code == "auth" and api_key == LOCAL_PLACEHOLDER_KEY:
        return errors.no_api_key(ctx)
    return exc


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _error_fields(body: dict[str, Any], fallback: str) -> tuple[str, str | None]:
    """The server's message and error code from an OpenAI-shaped error body."""
    inner = body.get("error", body)
    if isinstance(inner, dict):
        message = inner.get("message")
        code = inner.get("code")
        return (str(message) if message else fallback), (str(code) if code else None)
    return (inner if isinstance(inner, str) else fallback), None


def model_list(body: dict[str, Any], content_type: str, raw: bytes, ctx: ErrorContext) -> list[ModelInfo]:
    """The models of a `/models` answer. A body that is no JSON object (an HTML page) or whose
    `data` is not a list (`null`, missing) is an error that says what came back; an empty list
    is an empty list (the caller says so)."""
    data = body.get("data")
    if not isinstance(data, list):
        if not body:
            what = errors.describe_body(content_type, raw)
            sample = raw[:200].decode("utf-8", "replace")
        else:
            what, sample = f"a JSON object whose `data` is {json.dumps(data)[:40]}", ""
        raise errors.bad_response(ctx, what, sample, instead_of="a model list")
    return [ModelInfo(id=str(item["id"])) for item in data if isinstance(item, dict) and "id" in item]


class LazyOpenAIClient:
    def __init__(self, base_url: str, api_key: str, timeout_s: float) -> None:
        self._base_url = base_url
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._client: AsyncOpenAI | None = None

    def get(self) -> AsyncOpenAI:
        if self._client is None:
            from app.llm.fast_chunks import fast_client_class

            # max_retries=0: retries are ours (app.llm.retry), so only pre-first-token failures
            # are retried and Retry-After is honoured the way we choose. The class only speeds up
            # building streamed chunks (app/llm/fast_chunks.py).
            self._client = fast_client_class()(
                base_url=self._base_url, api_key=self._api_key, timeout=self._timeout_s, max_retries=0
            )
        return self._client

    async def list_models(self, ctx: ErrorContext) -> list[ModelInfo]:
        """`GET /models`; OpenAI-compatible servers say nothing about capabilities (None).

        Plain httpx2, not the SDK: the UI discovers models at start-up, and importing openai
        costs ~0.4 s and ~15 MB that an idle window should not pay."""
        import httpx2

        ctx = ctx.at("/models")
        if not self._api_key:
            raise errors.no_api_key(ctx)
        headers = {"Authorization": f"Bearer {self._api_key}"}
        try:
            async with httpx2.AsyncClient(timeout=self._timeout_s, trust_env=False) as http:
                response = await http.get(self._base_url + "/models", headers=headers)
        except httpx2.TimeoutException as exc:
            raise errors.connection_failed(ctx, timeout=True, after_headers=False) from exc
        except httpx2.TransportError as exc:
            raise errors.connection_failed(ctx, timeout=False, after_headers=False) from exc
        body = _json_object(response.content)
        if response.status_code >= 400:
            message, code = _error_fields(body, response.text[:500])
            error = errors.from_status(
                ctx,
                response.status_code,
                errors.scrub(message, self._api_key),
                code,
                errors.retry_after_seconds(response.headers),
            )
            raise explain_keyless(error, self._api_key, ctx)
        return model_list(body, response.headers.get("content-type", ""), response.content, ctx)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

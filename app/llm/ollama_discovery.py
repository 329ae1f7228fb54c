"""Ollama model discovery: `/api/tags` for names, `/api/show` for capabilities (tools, vision)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from app.contracts.provider import ModelInfo, ProviderError
from app.llm import errors
from app.llm.errors import ErrorContext

if TYPE_CHECKING:
    import httpx2


async def _json(
    http: httpx2.AsyncClient, ctx: ErrorContext, method: str, path: str, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    import httpx2

    ctx = ctx.at(path)
    try:
        response = await http.request(method, path, json=body)
    except httpx2.TimeoutException as exc:
        raise errors.connection_failed(ctx, timeout=True, after_headers=False) from exc
    except httpx2.TransportError as exc:
        raise errors.connection_failed(ctx, timeout=False, after_headers=False) from exc
    if response.status_code >= 400:
        raise errors.from_status(ctx, response.status_code, response.text[:500])
    try:
        value = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        what = errors.describe_body(response.headers.get("content-type", ""), response.content)
        sample = response.content[:200].decode("utf-8", "replace")
        wanted = "a model list" if path == "/api/tags" else f"JSON from {path}"
        raise errors.bad_response(ctx, what, sample, instead_of=wanted) from None
    return value if isinstance(value, dict) else {}


def _context_length(model_info: object) -> int | None:
    if not isinstance(model_info, dict):
        return None
    for key, value in model_info.items():
        if key.endswith(".context_length") and isinstance(value, int):
            return value
    return None


async def _describe(http: httpx2.AsyncClient, ctx: ErrorContext, name: str) -> ModelInfo:
    try:
        show = await _json(http, ctx, "POST", "/api/show", {"model": name})
    except ProviderError:
        # One model failing to describe itself should not hide the others.
        return ModelInfo(id=name)
    caps = show.get("capabilities")
    if not isinstance(caps, list):  # older Ollama: capabilities unknown
        return ModelInfo(id=name, context_length=_context_length(show.get("model_info")))
    return ModelInfo(
        id=name,
        supports_tools="tools" in caps,
        supports_vision="vision" in caps,
        context_length=_context_length(show.get("model_info")),
    )


async def discover_models(http: httpx2.AsyncClient, ctx: ErrorContext) -> list[ModelInfo]:
    tags = await _json(http, ctx, "GET", "/api/tags")
    listed = tags.get("models")
    if not isinstance(listed, list):
        shown = json.dumps(listed)[:40]
        raise errors.bad_response(
            ctx.at("/api/tags"), f"a JSON object whose `models` is {shown}", instead_of="a model list"
        )
    names = [str(m.get("name") or m.get("model")) for m in listed if isinstance(m, dict)]
    return list(await asyncio.gather(*(_describe(http, ctx, n) for n in names)))


def first_installed_model(root: str, timeout_s: float = 5.0) -> str | None:
    """The first model `/api/tags` lists (blocking; the CLI's pick when no model is set), or None
    when Ollama cannot be asked or has none."""
    import httpx2

    try:
        with httpx2.Client(base_url=root, timeout=timeout_s, trust_env=False) as http:
            listed = http.get("/api/tags").json().get("models")
    except (httpx2.HTTPError, ValueError, AttributeError):
        return None
    for item in listed if isinstance(listed, list) else ():
        name = item.get("name") or item.get("model") if isinstance(item, dict) else None
        if isinstance(name, str) and name:
            return name
    return None

"""Onboarding: is Ollama running locally? (a quick GET /api/tags, ≤ 1.5 s)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Mapping

from app.api import models as m

DEFAULT_OLLAMA = "http://127.0.0.1:11434"
PROBE_TIMEOUT_S = 1.5


def ollama_base_url(env: Mapping[str, str]) -> str:
    """`OLLAMA_HOST` (as Ollama itself reads it: `host:port` or a URL) or the default."""
    raw = (env.get("OLLAMA_HOST") or "").strip()
    if not raw:
        return DEFAULT_OLLAMA
    if "://" not in raw:
        raw = f"http://{raw}"
    return raw.rstrip("/")


def _fetch_tags(base_url: str) -> list[str]:
    # No proxies: the probe targets the local machine (and must not leak to a proxy).
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{base_url}/api/tags", timeout=PROBE_TIMEOUT_S) as resp:
        data = json.loads(resp.read(2_000_000).decode("utf-8"))
    models = data.get("models", []) if isinstance(data, dict) else []
    return [str(item["name"]) for item in models if isinstance(item, dict) and "name" in item]


async def probe_ollama(env: Mapping[str, str]) -> m.OllamaProbe:
    base_url = ollama_base_url(env)
    try:
        names = await asyncio.wait_for(asyncio.to_thread(_fetch_tags, base_url), PROBE_TIMEOUT_S + 0.2)
    except (OSError, TimeoutError, ValueError, urllib.error.URLError) as exc:
        reason = getattr(exc, "reason", exc)
        return m.OllamaProbe(
            found=False, base_url=base_url, message=f"Ollama is not running at {base_url} ({reason})."
        )
    return m.OllamaProbe(
        found=True, base_url=base_url, models=names, message=f"Found Ollama with {len(names)} models."
    )

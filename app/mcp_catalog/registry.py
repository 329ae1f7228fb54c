"""Reading an MCP Registry over HTTP: one page of the server list, one server's version.

The base URL is the user's (settings or `CASHCODE_MCP_REGISTRY_URL`; no default, decision 221)
and is trusted like a provider's base URL, so it may be this computer; every redirect hop goes
through the SSRF guard (app/tools/guarded_transport.py) and may not reach a private address.
Responses are capped in size; each entry is validated on its own and a malformed one is skipped
with a diagnostic, so one bad entry never hides the others.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import ValidationError

from app.mcp_catalog.registry_models import OFFICIAL_META, WireEntry, neutral
from app.tools.guarded_transport import GuardRefused, guarded_transport
from app.tools.ssrf import Resolver, system_resolve

MAX_BYTES = 4_000_000  # one response; the registry's pages are far smaller
MAX_DEPTH = 64  # JSON nesting; a registry entry is about 12 deep
PAGE_LIMIT = 30
# One deadline for the whole request (connect, redirects, every byte of the body): httpx's own
# timeout is per read, so an answer dribbled a byte every few seconds never hit it (issue 33 item 9).
TIMEOUT_S = 15.0
MAX_SKIPPED_SHOWN = 20
# The published API is `/v0.1` (frozen since 2025-10); `/v0` is the older path of the same
# format, which some self-hosted registries still serve (decision 220).
API_PATHS = ("/v0.1", "/v0")


class RegistryUnavailable(RuntimeError):
    """The registry could not be reached or did not answer in its format; the message says why."""


@dataclass(frozen=True)
class Page:
    entries: tuple[WireEntry, ...]
    next_cursor: str
    skipped: tuple[str, ...] = field(default=())  # one diagnostic per malformed entry


def check_base_url(url: str) -> str:
    """An http(s) URL without query or fragment, without a trailing slash; "" stays ""."""
    url = url.strip()
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the registry address must be an http(s) URL, got {url[:200]!r}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError("the registry address may not carry a query, a fragment or a user name")
    if len(url) > 500:
        raise ValueError("the registry address is longer than 500 characters")
    return url.rstrip("/")


# The first preview of the registry (2025-07) named these fields in snake case, with no
# `transport` object: too different to read safely (decision 362).
_PREVIEW_FIELDS = ("version_detail", "registry_name", "transport_type", "package_arguments")
TOO_OLD = (
    "it is in the registry's first preview format (2025-07: version_detail, registry_name), "
    "which CashCode cannot read; the registry must serve the current format"
)


class TooOld(ValueError):
    """An entry in the registry's first preview format (TOO_OLD says so)."""


def wrapped(raw: Any) -> Any:
    """A list item or version answer in the current shape `{"server": {...}, "_meta": {...}}`.
    The older flat shape (2025-09 to 2025-10: the server.json fields and `_meta` side by side)
    is wrapped; the first preview's shape raises TooOld; anything else is left to validation."""
    if not isinstance(raw, dict) or "server" in raw or "name" not in raw:
        return raw
    if _has_preview_fields(raw):
        raise TooOld(TOO_OLD)
    server = {key: value for key, value in raw.items() if key != "_meta"}
    meta = raw.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    official = meta.get(OFFICIAL_META)
    if isinstance(raw.get("status"), str) and (not isinstance(official, dict) or "status" not in official):
        # the flat shape kept `status` in the server itself (a deleted entry must stay hidden)
        meta[OFFICIAL_META] = {**(official if isinstance(official, dict) else {}), "status": raw["status"]}
    return {"server": server, "_meta": meta}


def _has_preview_fields(raw: dict[str, Any]) -> bool:
    if "version_detail" in raw:
        return True
    parts = [*(raw.get("packages") or []), *(raw.get("remotes") or [])]
    return any(isinstance(p, dict) and any(f in p for f in _PREVIEW_FIELDS) for p in parts)


def parse_page(data: Any) -> Page:
    if not isinstance(data, dict) or not isinstance(data.get("servers"), list):
        raise RegistryUnavailable("the registry's answer is not a server list (no `servers` array)")
    entries: list[WireEntry] = []
    skipped: list[str] = []
    for n, raw in enumerate(data["servers"]):
        try:
            entry = WireEntry.model_validate(wrapped(raw))
        except TooOld as exc:
            skipped.append(f"entry {n + 1} ({_name_of(raw)}): {exc}")
            continue
        except ValidationError as exc:
            skipped.append(f"entry {n + 1} ({_name_of(raw)}): {_first_error(exc)}")
            continue
        if entry.official.status == "deleted":
            continue
        entries.append(entry)
    meta = data.get("metadata")
    cursor = None
    if isinstance(meta, dict):  # `next_cursor` in the older format
        cursor = meta.get("nextCursor", meta.get("next_cursor"))
    return Page(tuple(entries), cursor if isinstance(cursor, str) else "", tuple(skipped))


def _name_of(raw: Any) -> str:
    server = raw.get("server", raw) if isinstance(raw, dict) else None
    name = server.get("name") if isinstance(server, dict) else None
    return neutral(name[:100]) if isinstance(name, str) else "no name"


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "entry"
    return neutral(f"{where}: {first['msg']}"[:300])


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays/objects in a JSON text (strings skipped), in one linear pass:
    checked before parsing, since a deep enough text makes the parser raise RecursionError."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_json(body: bytes) -> Any:
    if json_depth(body) > MAX_DEPTH:
        raise RegistryUnavailable(f"the registry's answer is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise RegistryUnavailable("the registry's answer is not JSON") from None


class RegistryClient:
    def __init__(
        self, base_url: str, resolver: Resolver = system_resolve, deadline_s: float = TIMEOUT_S
    ) -> None:
        self.base_url = base_url
        self._resolver = resolver
        self._deadline_s = deadline_s

    async def page(self, search: str, cursor: str, limit: int = PAGE_LIMIT) -> Page:
        params = {"limit": str(limit), "version": "latest"}
        if search:
            params["search"] = search
        if cursor:
            params["cursor"] = cursor
        return parse_page(await self._get("/servers", params))

    async def server(self, name: str, version: str = "latest") -> WireEntry:
        path = f"/servers/{quote(name, safe='')}/versions/{quote(version or 'latest', safe='')}"
        data = await self._get(path, {}, f"server {name[:100]!r} version {version[:40]!r}")
        try:
            return WireEntry.model_validate(wrapped(data))
        except TooOld as exc:
            raise RegistryUnavailable(f"the registry's entry {name[:100]!r} cannot be read: {exc}") from None
        except ValidationError as exc:
            problem = _first_error(exc)
            raise RegistryUnavailable(
                f"the registry's entry {name[:100]!r} is malformed: {problem}"
            ) from None

    async def _get(self, path: str, params: Mapping[str, str], what: str = "server list") -> Any:
        try:
            async with asyncio.timeout(self._deadline_s):
                return await self._fetch(path, params, what)
        except TimeoutError:
            raise RegistryUnavailable(f"no complete answer within {self._deadline_s:.0f} s") from None

    async def _fetch(self, path: str, params: Mapping[str, str], what: str) -> Any:
        import httpx2  # lazy: keeps `cashcode ask` start-up fast

        parts = urlsplit(self.base_url)
        host = (parts.hostname or "").lower()
        transport = guarded_transport(
            allow_private=False,
            trusted=(host, parts.port or (443 if parts.scheme == "https" else 80)),
            resolver=self._resolver,
        )
        try:
            async with httpx2.AsyncClient(
                transport=transport,
                trust_env=False,
                timeout=self._deadline_s,
                follow_redirects=True,
                max_redirects=3,
            ) as client:
                for n, prefix in enumerate(API_PATHS):
                    url = f"{self.base_url}{prefix}{path}"
                    async with client.stream("GET", url, params=dict(params), headers=_HEADERS) as resp:
                        if resp.status_code == 404 and n + 1 < len(API_PATHS):
                            continue
                        if resp.status_code == 404:
                            raise RegistryUnavailable(f"the registry has no {what} (HTTP 404)")
                        if resp.status_code != 200:
                            raise RegistryUnavailable(f"the registry answered HTTP {resp.status_code}")
                        body = bytearray()
                        async for chunk in resp.aiter_bytes():
                            body += chunk
                            if len(body) > MAX_BYTES:
                                raise RegistryUnavailable(
                                    f"the registry's answer is larger than {MAX_BYTES // 1_000_000} MB"
                                )
                        return parse_json(bytes(body))
        except GuardRefused as exc:
            raise RegistryUnavailable(f"refused: {exc}") from None
        except httpx2.TimeoutException:
            raise RegistryUnavailable(f"no answer within {self._deadline_s:.0f} s") from None
        except httpx2.HTTPError as exc:
            raise RegistryUnavailable(f"cannot reach {host} ({type(exc).__name__})") from None
        raise RegistryUnavailable(f"the registry has no {what} (HTTP 404)")


_HEADERS = {"Accept": "application/json", "User-Agent": "CashCode"}

"""Downloading a Registry package of type `mcpb` (an MCP Bundle at a URL, with the entry's
`fileSha256`) so the bundle installer (app/mcp_catalog/bundle_service.py) can take it.

The download goes through the SSRF guard like the registry itself: a private or loopback host
only when it is the registry's own host (the user chose that address), redirects never. It is
size-capped like an uploaded bundle, hashed while it streams, and a file whose SHA-256 is not
the entry's is deleted before anything reads it (decision 363).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

from app.mcp_catalog.bundle import LIMITS
from app.tools.guarded_transport import GuardRefused, guarded_transport
from app.tools.ssrf import Resolver

TIMEOUT_S = 120.0  # the whole download
SHA256 = re.compile(r"^[0-9a-f]{64}$")


class BundleDownloadError(Exception):
    """The bundle could not be fetched or is not the one the entry names (nothing was kept)."""


def bundle_problem(url: str, sha256: str) -> str:
    """Why an `mcpb` package cannot be installed ("" = it can)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "an mcpb package must name the bundle's http(s) URL"
    if not SHA256.fullmatch(sha256.lower()):
        return (
            "an mcpb package must give the bundle's fileSha256 (64 hex digits); without it nothing is checked"
        )
    return ""


@contextlib.asynccontextmanager
async def downloaded_bundle(
    url: str, sha256: str, folder: Path, registry_url: str, resolver: Resolver
) -> AsyncIterator[Path]:
    """The bundle at `url` as a file in `folder`, whose SHA-256 is `sha256`; removed on exit."""
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    path = folder / f"{secrets.token_hex(8)}.mcpb"
    try:
        got = await _fetch(url, path, registry_url, resolver)
        if got != sha256.lower():
            raise BundleDownloadError(
                f"the bundle at {url[:200]} has SHA-256 {got}, but the registry entry gives "
                f"{sha256.lower()}; it was deleted and nothing was installed"
            )
        yield path
    finally:
        await asyncio.to_thread(path.unlink, True)


async def _fetch(url: str, path: Path, registry_url: str, resolver: Resolver) -> str:
    import httpx2  # lazy: keeps `cashcode ask` start-up fast

    base = urlsplit(registry_url)
    target = urlsplit(url)
    trusted = None
    if base.hostname and (target.hostname or "").lower() == base.hostname.lower():
        trusted = ((target.hostname or "").lower(), target.port or (443 if target.scheme == "https" else 80))
    transport = guarded_transport(allow_private=False, trusted=trusted, resolver=resolver)
    digest = hashlib.sha256()
    size = 0
    try:
        async with (
            asyncio.timeout(TIMEOUT_S),
            httpx2.AsyncClient(transport=transport, trust_env=False, timeout=30) as client,
            client.stream("GET", url, headers={"User-Agent": "CashCode"}) as resp,
        ):
            if resp.status_code != 200:
                raise BundleDownloadError(
                    f"downloading the bundle {url[:200]} answered HTTP {resp.status_code}"
                )
            with path.open("wb") as out:
                async for chunk in resp.aiter_bytes():
                    size += len(chunk)
                    if size > LIMITS.max_archive_bytes:
                        raise BundleDownloadError(
                            f"the bundle at {url[:200]} is larger than {LIMITS.max_archive_bytes >> 20} MiB"
                        )
                    digest.update(chunk)
                    out.write(chunk)
    except TimeoutError:
        raise BundleDownloadError(
            f"the bundle at {url[:200]} did not download within {TIMEOUT_S:.0f} s"
        ) from None
    except GuardRefused as exc:
        raise BundleDownloadError(f"refused to download the bundle: {exc}") from None
    except httpx2.HTTPError as exc:
        raise BundleDownloadError(f"cannot download the bundle {url[:200]} ({type(exc).__name__})") from None
    return digest.hexdigest()

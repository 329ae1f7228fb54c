"""The `web_fetch` tool: GET one http(s) URL and return readable text, behind the SSRF guard.

DNS rebinding: each hop's host is resolved once, every returned address is vetted, and the
connection goes to that vetted IP (the URL's host is swapped for the IP; the Host header and TLS
SNI/certificate check keep the original name). So the name cannot re-resolve to a private
address between the check and the connect. Redirects are followed by hand (≤5), each hop vetted
the same way. Proxies from the environment are ignored (`trust_env=False`): a proxy would make
the pinned-IP check meaningless.

Asking per host: a prompt-injected turn could read a file and send it out inside a URL, so a
fetch asks first (Deny / Allow once / Always for this host) unless the host has a standing
`web_host` grant or the mode is autonomous. Read-only mode fetches only granted hosts (see
docs/decisions.md). Redirects are the server's choice, not the model's, and are not asked again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from app.contracts.tool_args import opt_int, req_str
from app.contracts.tools import (
    ApprovalInfo,
    GrantKey,
    PreparedCall,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    summary,
)
from app.support.paging import char_marker, char_page, page_chars
from app.tools.specs import WEB_FETCH
from app.tools.ssrf import AddressPolicy, IPAddress, Resolver, address_problem, parse_ip, system_resolve

if TYPE_CHECKING:
    import httpx2

MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 5
TIMEOUT_S = 20.0  # per network operation (connect, each read)
OVERALL_TIMEOUT_S = 60.0  # the whole fetch, redirects included: a slow drip cannot hold a turn
USER_AGENT = "CashCode/0.1 (+local desktop agent)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str  # without brackets
    port: int
    offset: int = 0  # first character of the readable text to return (paging)


@dataclass(frozen=True)
class Fetched:
    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool


def parse_target(url: str) -> Target:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ToolError(f"Invalid URL '{url}': {exc}.") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ToolError(f"Only http and https URLs can be fetched, not '{scheme or url}'.")
    if not parts.hostname:
        raise ToolError(f"URL '{url}' has no host.")
    return Target(parts.geturl(), scheme, parts.hostname, port or (443 if scheme == "https" else 80))


class WebFetchTool(Tool):
    name = WEB_FETCH.name
    description = WEB_FETCH.description
    parameters = WEB_FETCH.parameters
    # Not read-only: a URL can carry data out. Each call asks per host (see the module doc).
    read_only = False

    def __init__(
        self,
        resolver: Resolver = system_resolve,
        policy: AddressPolicy = address_problem,
        overall_timeout_s: float = OVERALL_TIMEOUT_S,
    ) -> None:
        self._resolve = resolver
        self._policy = policy
        self._overall_s = overall_timeout_s

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        target = replace(
            parse_target(req_str(args, "url")), offset=opt_int(args, "offset", default=0, lo=0, hi=10**9) or 0
        )
        await self.vet(target, ctx)  # fail early, before any approval is shown
        return PreparedCall(tool=self.name, args=args, approval=host_approval(target), state=target)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        import httpx2  # lazy: keeps `cashcode ask` start-up fast

        target: Target = call.state
        try:
            async with (
                asyncio.timeout(self._overall_s),
                httpx2.AsyncClient(trust_env=False, follow_redirects=False, timeout=TIMEOUT_S) as client,
            ):
                fetched = await self._fetch(client, target, ctx)
        except TimeoutError as exc:
            raise ToolError(
                f"Fetching {target.url} took longer than {self._overall_s:g} s in all and was stopped."
            ) from exc
        except httpx2.HTTPError as exc:
            raise ToolError(f"Fetching {target.url} failed: {type(exc).__name__}: {exc}.") from exc
        # HTML to text is CPU work on up to the download cap: in a thread, never on the loop.
        return await asyncio.to_thread(_to_result, fetched, target.offset, page_chars(ctx.output_budget))

    async def vet(self, target: Target, ctx: ToolContext) -> IPAddress:
        """Resolve the host and check every address; return the one to connect to."""
        literal = parse_ip(target.host)
        if literal is not None:
            addresses = [literal]
        else:
            try:
                addresses = await self._resolve(target.host, target.port)
            except OSError as exc:
                raise ToolError(f"Could not resolve '{target.host}': {exc}.") from exc
        if not addresses:
            raise ToolError(f"'{target.host}' did not resolve to any address.")
        for ip in addresses:  # all of them: a mixed answer is a classic rebinding trick
            problem = self._policy(ip, ctx.allow_private_network)
            if problem:
                raise ToolError(
                    f"Refused to fetch {target.url}: {target.host} resolves to {problem}. "
                    "Local and private network addresses are blocked (see Settings to allow them)."
                )
        return addresses[0]

    async def _fetch(self, client: httpx2.AsyncClient, target: Target, ctx: ToolContext) -> Fetched:
        for _hop in range(MAX_REDIRECTS + 1):
            ip = await self.vet(target, ctx)
            async with client.stream("GET", _pinned_url(target, ip), **_request_options(target)) as resp:
                location = resp.headers.get("location")
                if resp.status_code in _REDIRECTS and location:
                    target = parse_target(urljoin(target.url, location))
                    continue
                body, truncated = await _read_capped(resp)
                content_type = resp.headers.get("content-type", "")
                return Fetched(target.url, resp.status_code, content_type, body, truncated)
        raise ToolError(f"Too many redirects (more than {MAX_REDIRECTS}).")


def grant_host(host: str) -> str:
    """The host as a grant stores it: lower case, no trailing dot, no brackets."""
    return host.strip("[]").rstrip(".").lower()


def host_approval(target: Target) -> ApprovalInfo:
    host = grant_host(target.host)
    return ApprovalInfo(
        title=f"Fetch from {host}",
        detail=f"GET {target.url}\nEverything in this address is sent to {host}.",
        summary=summary("fetch_url", f"GET {target.url}", host=host),
        grant_key=GrantKey(kind="web_host", key=(host,)),
    )


def _pinned_url(target: Target, ip: IPAddress) -> str:
    """The same URL with the host replaced by the vetted IP."""
    parts = urlsplit(target.url)
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{host}:{target.port}"
    return parts._replace(netloc=netloc).geturl()


def _request_options(target: Target) -> dict[str, Any]:
    default_port = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    host_header = host if target.port == default_port else f"{host}:{target.port}"
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    headers = {
        "Host": host_header,
        "User-Agent": USER_AGENT,
        "Accept": "text/html, application/json, text/*;q=0.9",
    }
    return {"headers": headers, "extensions": extensions}


async def _read_capped(resp: httpx2.Response) -> tuple[bytes, bool]:
    body = bytearray()
    async for chunk in resp.aiter_bytes():
        body += chunk
        if len(body) > MAX_DOWNLOAD_BYTES:
            return bytes(body[:MAX_DOWNLOAD_BYTES]), True
    return bytes(body), False


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip("\"' ")
    return "utf-8"


def _to_result(f: Fetched, offset: int, max_chars: int) -> ToolResult:
    mime = f.content_type.split(";", 1)[0].strip().lower()
    try:
        text = f.body.decode(_charset(f.content_type), errors="replace")
    except LookupError:
        text = f.body.decode("utf-8", errors="replace")
    if mime in ("text/html", "application/xhtml+xml") or (not mime and "<html" in text[:1000].lower()):
        from app.tools.html_text import html_to_text  # html.parser: only when a page is fetched

        text = html_to_text(text, f.url)
    elif mime == "application/json" or mime.endswith("+json"):
        text = _pretty_json(text)
    elif not (mime.startswith("text/") or mime in ("application/xml", "application/javascript", "")):
        raise ToolError(
            f"{f.url} returned '{mime}', which is not text; only text, HTML and JSON are supported."
        )
    notes = []
    if f.truncated:
        notes.append(
            f"[truncated: download stopped at {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MiB; the rest of the "
            "page is left out]"
        )
    if offset >= len(text) and offset > 0:
        notes.append(f"[the text has {len(text)} characters; nothing is left after offset={offset}]")
    shown, next_offset = char_page(text, min(offset, len(text)), max_chars)
    marker = char_marker(offset, len(shown), len(text), next_offset, how=f"web_fetch url={f.url!r}")
    if marker:
        notes.append(marker)
    header = f"URL: {f.url}\nStatus: {f.status}\n\n"
    content = header + shown + ("\n" + "\n".join(notes) if notes else "")
    return ToolResult(
        ok=200 <= f.status < 400,
        content=content,
        truncated=bool(notes),
        metadata={"url": f.url, "status": f.status, "content_type": mime},
    )


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text

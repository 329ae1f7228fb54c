"""An httpx transport that sends every request through the SSRF guard (app/tools/ssrf.py).

For tools that talk to a fixed service and let the client follow redirects (`web_search`):
each hop's host is resolved once, every address is vetted, and the connection goes to the
vetted IP with the original Host header and TLS name, as `web_fetch` does by hand. A redirect
to a private address is therefore refused like a fetch of it. The user's own configured address
may be trusted (a SearXNG on this machine); that trust does not pass to a redirect target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.tools.ssrf import AddressPolicy, IPAddress, Resolver, address_problem, parse_ip, system_resolve

if TYPE_CHECKING:
    import httpx2


class GuardRefused(Exception):
    """A hop's host is not allowed (the message says which and why)."""


async def vet_host(
    host: str, port: int, *, allow_private: bool, resolver: Resolver, policy: AddressPolicy
) -> IPAddress:
    literal = parse_ip(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = await resolver(host, port)
        except OSError as exc:
            raise GuardRefused(f"could not resolve '{host}': {exc}") from exc
    if not addresses:
        raise GuardRefused(f"'{host}' did not resolve to any address")
    for ip in addresses:  # all of them: a mixed answer is a classic rebinding trick
        if problem := policy(ip, allow_private):
            raise GuardRefused(
                f"{host} resolves to {problem}; local and private network addresses are blocked "
                "(see Settings to allow them)"
            )
    return addresses[0]


def guarded_transport(
    *,
    allow_private: bool,
    trusted: tuple[str, int] | None = None,
    resolver: Resolver = system_resolve,
    policy: AddressPolicy = address_problem,
) -> httpx2.AsyncBaseTransport:
    """`trusted` (host, port): the user's configured service, allowed on a private address."""
    import httpx2  # lazy: keeps `cashcode ask` start-up fast

    class GuardedTransport(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self._inner = httpx2.AsyncHTTPTransport(trust_env=False)

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            url = request.url
            host = url.host
            port = url.port or (443 if url.scheme == "https" else 80)
            private_ok = allow_private or (trusted is not None and (host.lower(), port) == trusted)
            ip = await vet_host(host, port, allow_private=private_ok, resolver=resolver, policy=policy)
            pinned = url.copy_with(host=str(ip))
            headers = request.headers.copy()
            headers["Host"] = url.netloc.decode("ascii")
            extensions = dict(request.extensions)
            if url.scheme == "https":
                extensions["sni_hostname"] = host
            # A new request object: the client joins a relative redirect against the original.
            inner = httpx2.Request(
                request.method, pinned, headers=headers, stream=request.stream, extensions=extensions
            )
            return await self._inner.handle_async_request(inner)

        async def aclose(self) -> None:
            await self._inner.aclose()

    return GuardedTransport()

"""Where a Registry remote's URL points, said before the install (issue 33 item 9): a remote on
this computer, the local network or a link-local address (169.254.x, the cloud metadata range)
is something a stranger's registry entry should not send the user to without saying so.

The host is resolved once for the plan; a name that does not resolve says nothing (connecting
will fail on its own). Embedded IPv4 (::ffff:a.b.c.d, 6to4, NAT64) is judged as that host.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Literal
from urllib.parse import urlsplit

from app.tools.ssrf import IPAddress, Resolver, parse_ip

AddressKind = Literal["", "loopback", "link_local", "private"]
RESOLVE_TIMEOUT_S = 3.0
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def classify(ip: IPAddress) -> AddressKind:
    """The most telling kind of a non-public address, "" for a public one."""
    candidates: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            candidates = [ip.ipv4_mapped]
        else:
            if ip.sixtofour is not None:
                candidates.append(ip.sixtofour)
            if ip in _NAT64:
                candidates.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    for c in candidates:
        if c.is_loopback or c.is_unspecified:
            return "loopback"
        if c.is_link_local:
            return "link_local"
    if any(c.is_private or not c.is_global for c in candidates):
        return "private"
    return ""


async def remote_address(url: str, resolver: Resolver) -> AddressKind:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host:
        return ""
    if host == "localhost" or host.endswith(".localhost"):
        return "loopback"
    literal = parse_ip(host)
    if literal is not None:
        return classify(literal)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_S):
            found = await resolver(host, port)
    except (OSError, TimeoutError, UnicodeError):
        return ""
    kinds = [classify(ip) for ip in found]
    for kind in ("loopback", "link_local", "private"):
        if kind in kinds:
            return kind
    return ""

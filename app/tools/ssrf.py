"""SSRF guard: which addresses web_fetch may connect to.

Refused (unless the user allowed private networks in settings): loopback, private, link-local,
shared (CGNAT), multicast, reserved, unspecified and every other non-global range, for IPv4 and
IPv6, including IPv4 embedded in IPv6 (IPv4-mapped ::ffff:a.b.c.d, 6to4 2002::/16, Teredo and the
NAT64 prefix 64:ff9b::/96), since those reach the same IPv4 hosts.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
AddressPolicy = Callable[[IPAddress, bool], str | None]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_problem(ip: IPAddress, allow_private: bool) -> str | None:
    """Why `ip` may not be fetched, or None if it may. This is the default AddressPolicy."""
    if allow_private:
        return None
    for candidate in _embedded(ip):
        if _non_public(candidate):
            return f"{ip} is a private, loopback, link-local or otherwise non-public address"
    return None


def _embedded(ip: IPAddress) -> list[IPAddress]:
    """The address itself plus any IPv4 address it carries."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]  # ::ffff:a.b.c.d *is* the IPv4 host; judge that alone
    out: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.sixtofour is not None:
            out.append(ip.sixtofour)
        if ip.teredo is not None:
            out.append(ip.teredo[1])
        if ip in _NAT64:
            out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def _non_public(ip: IPAddress) -> bool:
    return (
        not ip.is_global
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def parse_ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


async def system_resolve(host: str, port: int) -> list[IPAddress]:
    """All addresses the OS resolver returns for host (IPv4 and IPv6)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[IPAddress] = []
    for family, _type, _proto, _canon, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6):
            ip = parse_ip(str(sockaddr[0]))
            if ip is not None and ip not in out:
                out.append(ip)
    return out

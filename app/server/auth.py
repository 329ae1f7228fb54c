"""Per-process capability token, the cookie it is exchanged for, and Host/Origin checks.

The token is printed once in the start URL; the browser trades it for an HttpOnly
SameSite=Strict cookie. A new process makes a new token, so cookies from an earlier run stop
working (SPEC S12).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

TOKEN_QUERY_PARAM = "token"


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class AccessPolicy:
    token: str
    port: int

    @property
    def cookie_name(self) -> str:
        # Cookies are scoped by host, not port: naming by port keeps two servers on different
        # ports from overwriting each other's cookie.
        return f"cashcode_{self.port}"

    @property
    def allowed_hosts(self) -> frozenset[str]:
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    def start_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?{TOKEN_QUERY_PARAM}={self.token}"

    def host_ok(self, host: str | None) -> bool:
        # Exact match (no suffix/prefix games): a DNS-rebinding page arrives with its own name.
        return host is not None and host in self.allowed_hosts

    def origin_ok(self, origin: str | None, host: str) -> bool:
        """Same origin only: the Origin must name exactly the (already validated) Host."""
        return origin is not None and origin == f"http://{host}"

    def token_ok(self, presented: str | None) -> bool:
        if not presented:
            return False
        return hmac.compare_digest(presented.encode("utf-8"), self.token.encode("utf-8"))

    def set_cookie_header(self) -> str:
        # No Max-Age/Expires: a session cookie, and useless after this process exits anyway.
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

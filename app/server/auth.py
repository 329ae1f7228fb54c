"""Per-process secrets of `cashcode serve` and the checks built on them.

Three different secrets, all made fresh by each process (SPEC S12, issue 7 item 2):

- the **start token**, printed once in the start URL and good for exactly one use;
- the **session** value the browser gets in exchange, in an HttpOnly SameSite=Strict cookie
  whose `Path` is an unguessable **prefix** the UI is served under. Browsers send localhost
  cookies to every port, but only for paths under the cookie's Path, so another local web
  server never sees it unless it already knows the prefix;
- the **API token** for scripts (`Authorization: Bearer`, published in the runtime file),
  accepted only on the fixed script paths (`/ws`, `/api/...`). Browsers cannot attach that
  header cross-origin without a CORS preflight, which this server never grants.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field

TOKEN_QUERY_PARAM = "token"
BEARER_SCHEME = "bearer"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_prefix() -> str:
    # One path segment, so the UI's relative URLs ("api/invoke/…") resolve under it.
    return "/ui-" + secrets.token_hex(16)


def _same_secret(presented: str | None, expected: str) -> bool:
    if not presented:
        return False
    return hmac.compare_digest(presented.encode("utf-8"), expected.encode("utf-8"))


class StartTicket:
    """The start token: redeemable once. All redemptions run on the server's event loop thread
    with no await between check and mark, so two racing requests cannot both succeed."""

    def __init__(self, token: str) -> None:
        self.token = token
        self._used = False

    def __repr__(self) -> str:
        return f"StartTicket(token='***', used={self._used})"

    @property
    def used(self) -> bool:
        return self._used

    def redeem(self, presented: str | None) -> bool:
        if self._used or not _same_secret(presented, self.token):
            return False
        self._used = True
        return True


@dataclass(frozen=True)
class AccessPolicy:
    port: int
    start: StartTicket
    session: str = field(default_factory=new_token)
    api_token: str = field(default_factory=new_token)
    prefix: str = field(default_factory=new_prefix)

    def __repr__(self) -> str:
        # Logged or shown in a traceback: the secrets never print (issue 23.9).
        return f"AccessPolicy(port={self.port}, session='***', api_token='***', prefix='***')"

    @classmethod
    def create(cls, port: int) -> AccessPolicy:
        return cls(port=port, start=StartTicket(new_token()))

    @property
    def cookie_name(self) -> str:
        # Cookies are scoped by host, not port: naming by port keeps two servers on different
        # ports from overwriting each other's cookie.
        return f"cashcode_{self.port}"

    @property
    def allowed_hosts(self) -> frozenset[str]:
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_url(self) -> str:
        return f"{self.base_url}/?{TOKEN_QUERY_PARAM}={self.start.token}"

    def host_ok(self, host: str | None) -> bool:
        # Exact match (no suffix/prefix games): a DNS-rebinding page arrives with its own name.
        return host is not None and host in self.allowed_hosts

    def origin_ok(self, origin: str | None, host: str) -> bool:
        """Same origin only: the Origin must name exactly the (already validated) Host."""
        return origin is not None and origin == f"http://{host}"

    def under_prefix(self, path: str) -> bool:
        return path == self.prefix or path.startswith(self.prefix + "/")

    def session_ok(self, presented: str | None) -> bool:
        return _same_secret(presented, self.session)

    def bearer_ok(self, authorization: str | None) -> bool:
        if not authorization:
            return False
        scheme, _, value = authorization.partition(" ")
        return scheme.lower() == BEARER_SCHEME and _same_secret(value.strip(), self.api_token)

    def set_cookie_header(self) -> str:
        # No Max-Age/Expires: a session cookie, and useless after this process exits anyway.
        return f"{self.cookie_name}={self.session}; Path={self.prefix}; HttpOnly; SameSite=Strict"

"""serve edges of the third attack pass (issue 23.9): duplicated Host headers and session
cookies, the policy's repr, and the client's X-Request-ID — against the real server."""

from __future__ import annotations

import asyncio
import re

from starlette.types import Message, Receive, Scope, Send

from app.server.auth import AccessPolicy
from app.server.guard import Guard
from tests.server.conftest import Served


async def _raw(served: Served, head: list[str]) -> tuple[int, str]:
    """One HTTP/1.1 request with exactly these header lines (no client merges or drops any)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(("\r\n".join([*head, "Connection: close", "", ""])).encode("latin-1"))
    await writer.drain()
    data = await reader.read()
    writer.close()
    status_line, _, rest = data.decode("latin-1").partition("\r\n")
    return int(status_line.split()[1]), rest


async def test_two_host_headers_are_refused_even_if_both_are_valid(served: Served) -> None:
    cookie = f"Cookie: {served.policy.cookie_name}={served.policy.session}"
    good = f"Host: 127.0.0.1:{served.port}"
    ok, _ = await _raw(served, [f"GET {served.prefix}/ HTTP/1.1", good, cookie])
    for second in (f"Host: evil.example:{served.port}", f"Host: localhost:{served.port}"):
        status, _ = await _raw(served, [f"GET {served.prefix}/ HTTP/1.1", good, second, cookie])
        assert status == 400, second
    assert ok == 200


async def test_the_guard_itself_refuses_two_host_headers() -> None:
    """Below the HTTP parser (another ASGI server may pass both through)."""
    policy = AccessPolicy.create(8765)
    reached: list[Scope] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope)

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    cookie = (b"cookie", f"{policy.cookie_name}={policy.session}".encode())
    for hosts in ([b"127.0.0.1:8765", b"127.0.0.1:8765"], [b"127.0.0.1:8765", b"evil.example:8765"]):
        scope = {
            "type": "http",
            "method": "GET",
            "path": policy.prefix + "/",
            "query_string": b"",
            "headers": [*((b"host", h) for h in hosts), cookie],
        }
        await Guard(inner, policy)(scope, receive, send)
    assert reached == []
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [400, 400]


async def test_two_session_cookies_are_refused(served: Served) -> None:
    name, value = served.policy.cookie_name, served.policy.session
    host = f"Host: 127.0.0.1:{served.port}"
    get = f"GET {served.prefix}/ HTTP/1.1"
    one_header, _ = await _raw(served, [get, host, f"Cookie: {name}=planted; {name}={value}"])
    both_good, _ = await _raw(served, [get, host, f"Cookie: {name}={value}; {name}={value}"])
    two_headers, _ = await _raw(served, [get, host, f"Cookie: {name}={value}", f"Cookie: {name}=planted"])
    single, _ = await _raw(served, [get, host, f"Cookie: other=1; {name}={value}"])
    assert [one_header, both_good, two_headers] == [401, 401, 401]
    assert single == 200


def test_the_policys_repr_masks_every_secret() -> None:
    policy = AccessPolicy.create(8765)
    shown = repr(policy) + str(policy) + repr(policy.start)
    for secret in (policy.session, policy.api_token, policy.start.token, policy.prefix):
        assert secret not in shown
    assert "8765" in shown


async def test_only_a_well_formed_request_id_is_echoed(served: Served) -> None:
    async with served.client() as client:
        for sent, kept in (("abc-123_x.y", True), ("a" * 65, False), ("<script>", False), ("a b", False)):
            headers = {"x-request-id": sent, **served.cookie_header}
            response = await client.get(served.ui("/"), headers=headers)
            echoed = response.headers["x-request-id"]
            assert (echoed == sent) is kept, sent
            assert re.fullmatch(r"[A-Za-z0-9._-]{1,64}", echoed)
    host = f"Host: 127.0.0.1:{served.port}"
    cookie = f"Cookie: {served.policy.cookie_name}={served.policy.session}"
    _, head = await _raw(served, [f"GET {served.prefix}/ HTTP/1.1", host, cookie, "X-Request-ID: ok\x0bbad"])
    assert "ok\x0bbad" not in head

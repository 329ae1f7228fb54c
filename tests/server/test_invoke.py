from __future__ import annotations

from collections.abc import AsyncIterator

from tests.server.conftest import Served


async def test_invoke_passes_route_and_payload_and_returns_the_envelope(served: Served) -> None:
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.get"),
            json={"chat_id": "c1", "limit": 5},
            headers={"origin": served.origin, **served.cookie_header},
        )
    assert response.status_code == 200
    payload = {"chat_id": "c1", "limit": 5}
    assert response.json() == {"ok": True, "data": {"route": "chats.get", "payload": payload}}
    assert response.headers["cache-control"] == "no-store"
    assert served.app.calls == [("chats.get", {"chat_id": "c1", "limit": 5})]


async def test_an_application_error_envelope_is_passed_through_unchanged(served: Served) -> None:
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/echo.fail"),
            json={},
            headers={"origin": served.origin, **served.cookie_header},
        )
    assert response.status_code == 200
    assert response.json()["ok"] is False
    assert response.json()["error"]["code"] == "not_found"


async def test_an_empty_body_is_an_empty_payload(served: Served) -> None:
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.list"), headers={"origin": served.origin, **served.cookie_header}
        )
    assert response.json()["ok"] is True
    assert served.app.calls == [("chats.list", {})]


async def test_bad_route_names_get_an_error_envelope_and_never_reach_the_app(served: Served) -> None:
    async with served.client() as client:
        for route in ("chats", "Chats.list", "a.b.c.d.e", "chats.l1st", "..%2Fetc", "chats.-x"):
            response = await client.post(
                served.ui(f"/api/invoke/{route}"),
                json={},
                headers={"origin": served.origin, **served.cookie_header},
            )
            assert response.status_code in (400, 404), route
            assert response.json()["ok"] is False, route
    assert served.app.calls == []


async def test_a_body_that_is_not_a_json_object_gets_an_invalid_envelope(served: Served) -> None:
    async with served.client() as client:
        for body in (b"{not json", b"[1, 2]", b"\xff\xfe"):
            response = await client.post(
                served.ui("/api/invoke/chats.list"),
                content=body,
                headers={"origin": served.origin, "content-type": "application/json", **served.cookie_header},
            )
            assert response.status_code == 400
            assert response.json()["error"]["code"] == "invalid"
    assert served.app.calls == []


async def test_an_oversized_body_is_refused_with_413(served: Served) -> None:
    big = b'{"text": "' + b"a" * (1024 * 1024) + b'"}'
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chat.send"),
            content=big,
            headers={"origin": served.origin, "content-type": "application/json", **served.cookie_header},
        )
    assert response.status_code == 413
    assert response.json()["ok"] is False
    assert served.app.calls == []


async def test_an_oversized_chunked_body_without_length_is_refused_with_413(served: Served) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b"a" * 65536

    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chat.send"),
            content=chunks(),
            headers={"origin": served.origin, **served.cookie_header},
        )
    assert response.status_code == 413
    assert served.app.calls == []


async def test_a_post_from_another_origin_is_refused_with_403(served: Served) -> None:
    async with served.client() as client:
        for origin in (
            "http://evil.example",
            f"http://127.0.0.1:{served.port + 1}",
            f"https://127.0.0.1:{served.port}",
            "null",
            f"http://localhost:{served.port}",
        ):
            response = await client.post(
                served.ui("/api/invoke/chats.list"),
                json={},
                headers={"origin": origin, **served.cookie_header},
            )
            assert response.status_code == 403, origin
    assert served.app.calls == []


async def test_a_post_without_an_origin_is_refused_with_403(served: Served) -> None:
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.list"), json={}, headers=served.cookie_header
        )
    assert response.status_code == 403
    assert served.app.calls == []


async def test_deeply_nested_json_is_a_400_not_a_server_error(served: Served) -> None:
    async with served.client() as client:
        for depth in (100, 100_000):
            body = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
            response = await client.post(
                served.ui("/api/invoke/chats.list"),
                content=body,
                headers={"origin": served.origin, "content-type": "application/json", **served.cookie_header},
            )
            assert response.status_code == 400, depth
            assert response.json()["error"]["code"] == "invalid"
            assert "nested" in response.json()["error"]["message"]
        shallow = await client.post(
            served.ui("/api/invoke/chats.list"),
            content=b'{"a": [[["ok"]]], "b": "[[[[[[ brackets in a string are fine"}',
            headers={"origin": served.origin, "content-type": "application/json", **served.cookie_header},
        )
    assert shallow.status_code == 200
    assert len(served.app.calls) == 1

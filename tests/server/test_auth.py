from __future__ import annotations

from tests.server.conftest import Served


async def test_start_url_token_sets_a_strict_session_cookie_and_redirects_to_a_clean_root(
    served: Served,
) -> None:
    async with served.client() as client:
        response = await client.get(f"/?token={served.token}")
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    parts = [p.strip() for p in cookie.split(";")]
    assert parts[0] == f"cashcode_{served.port}={served.token}"
    assert "HttpOnly" in parts
    assert "SameSite=Strict" in parts
    assert "Path=/" in parts
    assert not any(p.lower().startswith(("max-age", "expires")) for p in parts)


async def test_following_the_start_url_lands_on_the_ui_with_the_cookie(served: Served) -> None:
    async with served.client() as client:
        client.follow_redirects = True
        response = await client.get(f"/?token={served.token}")
    assert response.status_code == 200
    assert str(response.url) == f"{served.base_url}/"
    assert 'data-testid="app-root"' in response.text


async def test_a_wrong_token_in_the_start_url_is_refused_without_a_cookie(served: Served) -> None:
    async with served.client() as client:
        response = await client.get("/?token=not-the-token")
    assert response.status_code == 401
    assert "set-cookie" not in response.headers
    assert "cashcode serve" in response.text


async def test_the_ui_without_a_cookie_answers_401_explaining_to_use_the_printed_url(served: Served) -> None:
    async with served.client() as client:
        response = await client.get("/")
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("text/html")
    assert "printed" in response.text
    assert "new token" in response.text


async def test_a_cookie_from_another_process_is_refused(served: Served) -> None:
    async with served.client() as client:
        response = await client.get("/", headers={"cookie": f"cashcode_{served.port}=token-of-an-old-run"})
    assert response.status_code == 401


async def test_assets_also_need_the_cookie(served: Served) -> None:
    async with served.client() as client:
        refused = await client.get("/assets/app.js")
        allowed = await client.get("/assets/app.js", headers=served.cookie_header)
    assert refused.status_code == 401
    assert allowed.status_code == 200


async def test_api_calls_without_a_cookie_get_a_401_error_envelope(served: Served) -> None:
    async with served.client() as client:
        response = await client.post("/api/invoke/chats.list", json={}, headers={"origin": served.origin})
    assert response.status_code == 401
    assert response.json()["ok"] is False
    assert response.json()["error"]["code"] == "unauthorized"
    assert served.app.calls == []


async def test_a_foreign_host_header_is_refused_even_with_a_valid_cookie(served: Served) -> None:
    async with served.client() as client:
        for host in (f"evil.example:{served.port}", "127.0.0.1", f"127.0.0.1:{served.port + 1}",
                     f"localhost.evil.example:{served.port}", f"sub.localhost:{served.port}"):
            response = await client.get("/", headers={"host": host, **served.cookie_header})
            assert response.status_code == 400, host


async def test_localhost_with_the_right_port_is_an_accepted_host(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(
            "/", headers={"host": f"localhost:{served.port}", **served.cookie_header}
        )
    assert response.status_code == 200

from __future__ import annotations

from app.server.auth import AccessPolicy
from tests.server.conftest import Served


def _cookie_parts(set_cookie: str) -> list[str]:
    return [p.strip() for p in set_cookie.split(";")]


async def test_the_start_url_sets_a_strict_session_cookie_scoped_to_the_secret_prefix(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(f"/?token={served.token}")
    assert response.status_code == 303
    assert response.headers["location"] == served.prefix + "/"
    parts = _cookie_parts(response.headers["set-cookie"])
    name, _, value = parts[0].partition("=")
    assert name == f"cashcode_{served.port}"
    # The session is not the start token (which sits in history and terminal scrollback) ...
    assert value == served.policy.session
    assert value != served.token
    assert value != served.policy.api_token
    # ... and the browser only sends it to paths under the unguessable prefix, never to "/" of
    # another local web server on some other port.
    assert f"Path={served.prefix}" in parts
    assert "Path=/" not in parts
    assert "HttpOnly" in parts
    assert "SameSite=Strict" in parts
    assert not any(p.lower().startswith(("max-age", "expires")) for p in parts)


async def test_following_the_start_url_lands_on_the_ui_under_the_prefix(served: Served) -> None:
    async with served.client() as client:
        client.follow_redirects = True
        response = await client.get(f"/?token={served.token}")
    assert response.status_code == 200
    assert str(response.url) == f"{served.base_url}{served.prefix}/"
    assert 'data-testid="app-root"' in response.text


async def test_the_start_url_works_only_once(served: Served) -> None:
    async with served.client() as client:
        first = await client.get(f"/?token={served.token}")
        second = await client.get(f"/?token={served.token}")
    assert first.status_code == 303
    assert second.status_code == 401
    assert "set-cookie" not in second.headers
    assert "already used" in second.text


async def test_a_wrong_token_does_not_use_up_the_start_url(served: Served) -> None:
    async with served.client() as client:
        wrong = await client.get("/?token=not-the-token")
        right = await client.get(f"/?token={served.token}")
    assert wrong.status_code == 401
    assert "set-cookie" not in wrong.headers
    assert "cashcode serve" in wrong.text
    assert right.status_code == 303


async def test_each_policy_has_fresh_independent_secrets() -> None:
    one, two = AccessPolicy.create(8000), AccessPolicy.create(8000)
    secrets_one = {one.start.token, one.session, one.api_token, one.prefix}
    assert len(secrets_one) == 4
    assert secrets_one.isdisjoint({two.start.token, two.session, two.api_token, two.prefix})
    assert len(one.prefix) >= len("/ui-") + 32


async def test_the_ui_without_a_cookie_answers_401_explaining_to_use_the_printed_url(served: Served) -> None:
    async with served.client() as client:
        for path in ("/", served.ui("/")):
            response = await client.get(path)
            assert response.status_code == 401, path
            assert response.headers["content-type"].startswith("text/html")
            assert "printed" in response.text
            assert "new token" in response.text


async def test_the_session_cookie_is_refused_outside_the_prefix_and_the_start_token_is_no_cookie(
    served: Served,
) -> None:
    async with served.client() as client:
        outside = await client.get("/", headers=served.cookie_header)
        api_outside = await client.post(
            "/api/invoke/chats.list", json={}, headers={"origin": served.origin, **served.cookie_header}
        )
        token_as_cookie = await client.get(
            served.ui("/"), headers={"cookie": f"{served.policy.cookie_name}={served.token}"}
        )
        inside = await client.get(served.ui("/"), headers=served.cookie_header)
    assert outside.status_code == 401
    assert api_outside.status_code == 401
    assert token_as_cookie.status_code == 401
    assert inside.status_code == 200
    assert served.app.calls == []


async def test_the_bare_prefix_redirects_to_its_folder_so_relative_urls_resolve(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(served.prefix, headers=served.cookie_header)
    assert response.status_code == 308
    assert response.headers["location"] == served.prefix + "/"


async def test_a_cookie_from_another_process_is_refused(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(served.ui("/"), headers={"cookie": f"cashcode_{served.port}=old-session"})
    assert response.status_code == 401


async def test_assets_also_need_the_cookie(served: Served) -> None:
    async with served.client() as client:
        refused = await client.get(served.ui("/assets/app.js"))
        allowed = await client.get(served.ui("/assets/app.js"), headers=served.cookie_header)
    assert refused.status_code == 401
    assert allowed.status_code == 200


async def test_api_calls_without_a_cookie_get_a_401_error_envelope(served: Served) -> None:
    async with served.client() as client:
        response = await client.post(
            served.ui("/api/invoke/chats.list"), json={}, headers={"origin": served.origin}
        )
    assert response.status_code == 401
    assert response.json()["ok"] is False
    assert response.json()["error"]["code"] == "unauthorized"
    assert served.app.calls == []


async def test_scripts_use_the_bearer_token_on_fixed_paths_without_an_origin(served: Served) -> None:
    async with served.client() as client:
        ok = await client.post("/api/invoke/chats.list", json={}, headers=served.bearer)
        wrong = await client.post("/api/invoke/chats.list", json={}, headers={"authorization": "Bearer nope"})
        start_token = await client.post(
            "/api/invoke/chats.list", json={}, headers={"authorization": f"Bearer {served.token}"}
        )
        session = await client.post(
            "/api/invoke/chats.list", json={}, headers={"authorization": f"Bearer {served.policy.session}"}
        )
        foreign = await client.post(
            "/api/invoke/chats.list", json={}, headers={"origin": "http://evil.example", **served.bearer}
        )
        ui_page = await client.get("/index.html", headers=served.bearer)
    assert ok.status_code == 200
    assert ok.json()["ok"] is True
    assert [wrong.status_code, start_token.status_code, session.status_code] == [401, 401, 401]
    assert foreign.status_code == 403
    assert ui_page.status_code == 401  # the token is for the API, not the browser UI
    assert served.app.calls == [("chats.list", {})]


async def test_a_foreign_host_header_is_refused_even_with_valid_credentials(served: Served) -> None:
    async with served.client() as client:
        for host in (
            f"evil.example:{served.port}",
            "127.0.0.1",
            f"127.0.0.1:{served.port + 1}",
            f"localhost.evil.example:{served.port}",
            f"sub.localhost:{served.port}",
        ):
            response = await client.get(served.ui("/"), headers={"host": host, **served.cookie_header})
            assert response.status_code == 400, host
            scripted = await client.post(
                "/api/invoke/chats.list", json={}, headers={"host": host, **served.bearer}
            )
            assert scripted.status_code == 400, host
    assert served.app.calls == []


async def test_localhost_with_the_right_port_is_an_accepted_host(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(
            served.ui("/"), headers={"host": f"localhost:{served.port}", **served.cookie_header}
        )
    assert response.status_code == 200

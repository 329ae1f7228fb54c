from __future__ import annotations

from pathlib import Path

from app.server.headers import artifact_content_security_policy, content_security_policy
from tests.server.conftest import Served, serve_stub


async def test_every_response_carries_the_security_headers(served: Served) -> None:
    async with served.client() as client:
        responses = [
            await client.get(served.ui("/"), headers=served.cookie_header),
            await client.get("/"),  # 401
            await client.get("/", headers={"host": "evil.example"}),  # 400
            await client.post(
                served.ui("/api/invoke/chats.list"),
                json={},
                headers={"origin": served.origin, **served.cookie_header},
            ),
            await client.get(served.ui("/assets/app.js"), headers=served.cookie_header),
        ]
    for response in responses:
        csp = response.headers["content-security-policy"]
        assert csp == content_security_policy(served.port)
        assert "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert f"connect-src 'self' ws://127.0.0.1:{served.port} ws://localhost:{served.port}" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"


async def test_runtime_config_selects_the_http_transport_instead_of_the_static_file(served: Served) -> None:
    async with served.client() as client:
        response = await client.get(served.ui("/runtime-config.js"), headers=served.cookie_header)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.text.strip() == 'window.__CASHCODE_TRANSPORT__ = "http";'


async def test_the_index_and_assets_are_served_from_the_static_dir(served: Served) -> None:
    async with served.client() as client:
        index = await client.get(served.ui("/"), headers=served.cookie_header)
        asset = await client.get(served.ui("/assets/app.js"), headers=served.cookie_header)
    assert 'data-testid="app-root"' in index.text
    assert index.headers["cache-control"] == "no-store"
    assert asset.text == "console.log('ui');\n"
    assert "javascript" in asset.headers["content-type"]


async def test_a_reloaded_client_side_route_gets_the_app_shell_but_missing_files_404(served: Served) -> None:
    async with served.client() as client:
        shell = await client.get(served.ui("/settings"), headers=served.cookie_header)
        missing = await client.get(served.ui("/assets/nope.js"), headers=served.cookie_header)
        api = await client.get(served.ui("/api/nothing"), headers=served.cookie_header)
    assert 'data-testid="app-root"' in shell.text
    assert missing.status_code == 404
    assert api.status_code == 404


async def test_files_outside_the_static_dir_are_not_served(served: Served) -> None:
    async with served.client() as client:
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt"):
            response = await client.get(served.ui(path), headers=served.cookie_header)
            assert "outside the web root" not in response.text, path


async def test_without_a_built_ui_the_root_explains_how_to_build_it(tmp_path: Path) -> None:
    empty = tmp_path / "web"
    empty.mkdir()
    async with serve_stub(empty) as served, served.client() as client:
        response = await client.get(served.ui("/"), headers=served.cookie_header)
    assert response.status_code == 503
    assert "python build.py run" in response.text
    assert response.headers["content-security-policy"]


async def test_the_artifact_page_gets_its_own_policy_and_only_behind_the_session(served: Served) -> None:
    """Issue 27: the sandboxed preview page must not carry the app's `script-src 'self'` (its
    inline scripts would not run) and must carry its own locked-down policy instead."""
    (served.static_dir / "artifact.html").write_text("<!doctype html><p>artifact</p>", encoding="utf-8")
    async with served.client() as client:
        page = await client.get(served.ui("/artifact.html"), headers=served.cookie_header)
        anonymous = await client.get(served.ui("/artifact.html"))
        app_page = await client.get(served.ui("/"), headers=served.cookie_header)
    assert page.status_code == 200 and "artifact" in page.text
    assert page.headers.get_list("content-security-policy") == [artifact_content_security_policy(served.port)]
    csp = page.headers["content-security-policy"]
    wanted = ("default-src 'none'", "script-src 'unsafe-inline'", "img-src data:", "sandbox allow-scripts")
    for directive in wanted:
        assert directive in csp
    assert "connect-src" not in csp  # falls back to default-src 'none': no network
    assert f"frame-ancestors http://127.0.0.1:{served.port} http://localhost:{served.port}" in csp
    assert "x-frame-options" not in page.headers
    # Without the session the page is refused, with the app's own headers.
    assert anonymous.status_code == 401
    assert anonymous.headers["content-security-policy"] == content_security_policy(served.port)
    assert app_page.headers["content-security-policy"] == content_security_policy(served.port)
    assert app_page.headers["x-frame-options"] == "DENY"


async def test_the_artifact_page_is_served_outside_the_prefix_with_webrtc_and_connections_off(
    served: Served,
) -> None:
    """Issue 33 item 3: an artifact reading its own `location` must not learn the UI prefix, so
    its page is served at `/artifact.html` (no prefix, no cookie needed: a static file holding
    nothing), with the artifact's policy plus what a CSP does not govern: Connection-Allowlist
    with no host and `webrtc=block`, every powerful feature off, no DNS prefetch."""
    (served.static_dir / "artifact.html").write_text("<!doctype html><p>artifact</p>", encoding="utf-8")
    async with served.client() as client:
        page = await client.get(f"http://127.0.0.1:{served.port}/artifact.html")
        posted = await client.post(f"http://127.0.0.1:{served.port}/artifact.html")
        other = await client.get(f"http://127.0.0.1:{served.port}/index.html")
        bad_host = await client.get(
            f"http://127.0.0.1:{served.port}/artifact.html", headers={"host": "evil.test"}
        )
    assert page.status_code == 200 and "artifact" in page.text
    assert served.prefix not in page.text
    assert "set-cookie" not in page.headers
    assert page.headers.get_list("content-security-policy") == [artifact_content_security_policy(served.port)]
    assert page.headers["connection-allowlist"] == "();webrtc=block"
    permissions = page.headers["permissions-policy"]
    for feature in ("camera=()", "microphone=()", "display-capture=()", "geolocation=()"):
        assert feature in permissions
    assert page.headers["x-dns-prefetch-control"] == "off"
    assert "x-frame-options" not in page.headers
    # Only reading that one file is open: a POST and any other path stay refused.
    assert posted.status_code == 401
    assert posted.headers["content-security-policy"] == content_security_policy(served.port)
    assert other.status_code == 401
    assert bad_host.status_code == 400

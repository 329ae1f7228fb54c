"""`cashcode serve` answers carry X-Request-ID and its log lines repeat it; the token never shows."""

from __future__ import annotations

import json
from pathlib import Path

from tests.observability.conftest import CapturedLogs
from tests.server.conftest import serve_stub


async def test_every_answer_has_a_request_id_that_its_log_line_repeats(
    static_dir: Path, captured_logs: CapturedLogs
) -> None:
    async with serve_stub(static_dir) as served, served.client() as client:
        start = served.policy.start_url().replace(served.base_url, "")
        first = await client.get(start)
        cookie = {"origin": served.origin, **served.cookie_header}
        invoked = await client.post(served.ui("/api/invoke/chats.list"), json={}, headers=cookie)
        own = await client.post(
            "/api/invoke/chats.list",
            json={},
            headers={"x-request-id": "client-id-42", **served.bearer},
        )
        hostile = await client.get("/", headers={"x-request-id": "bad id\twith spaces"})
    ids = [r.headers.get("x-request-id") for r in (first, invoked, own, hostile)]
    assert all(ids) and len(set(ids)) == 4
    assert ids[2] == "client-id-42" and ids[3] != "bad id\twith spaces"
    records = [json.loads(line) for line in captured_logs.lines()]
    by_id = {r.get("request_id"): r for r in records if r["logger"] == "app.server.requests"}
    for rid, response in zip(ids, (first, invoked, own, hostile), strict=True):
        assert rid in by_id
        assert by_id[rid]["msg"].endswith(f"-> {response.status_code}")
        assert by_id[rid]["duration_ms"] >= 0
    text = "\n".join(captured_logs.lines())
    for secret in (served.token, served.policy.session, served.policy.api_token, served.prefix):
        assert secret not in text
    assert "token=" not in by_id[ids[0]]["msg"]


async def test_access_lines_log_the_route_template_not_the_values_in_the_path(
    static_dir: Path, captured_logs: CapturedLogs
) -> None:
    async with serve_stub(static_dir) as served, served.client() as client:
        await client.get("/api/skills/private-skill-name-4242", headers=served.bearer)
        await client.get("/no-such-place/private-file-name-4343.txt", headers=served.bearer)
    lines = [json.loads(line) for line in captured_logs.lines()]
    access = [r["msg"] for r in lines if r["logger"] == "app.server.requests"]
    assert any(m.startswith("GET /api/skills/{name} ->") for m in access), access
    assert any(m.startswith("GET /no-such-place/… ->") for m in access), access
    server_side = "\n".join(r["msg"] for r in lines if r["logger"].startswith(("app.", "uvicorn")))
    assert "private-skill-name-4242" not in server_side and "private-file-name-4343" not in server_side

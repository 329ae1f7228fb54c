"""The desktop's optional local API (Settings → Local API): off by default; when on, the script
surface with serve.json, gone when the app closes."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
from websockets.asyncio.client import connect

from app.server.local_api import with_local_api
from tests.api.conftest import AppMaker, make_app, ok, paths, secrets, workspace  # noqa: F401


async def test_off_by_default_nothing_listens_and_no_runtime_file(make_app: AppMaker, tmp_path: Path) -> None:  # noqa: F811
    app, _ = await make_app()
    assert (await ok(app, "settings.get"))["local_api"] is False
    same = await with_local_api(app, {"CASHCODE_RUNTIME_DIR": str(tmp_path / "rt")})
    assert same is app
    assert not (tmp_path / "rt").exists()


async def test_when_on_scripts_reach_the_api_with_the_token_until_it_stops(
    make_app: AppMaker,  # noqa: F811
    tmp_path: Path,
) -> None:
    app, _ = await make_app()
    await ok(app, "settings.update", {"local_api": True})
    wrapped = await with_local_api(app, {"CASHCODE_RUNTIME_DIR": str(tmp_path / "rt")})
    assert wrapped is not app and wrapped.ctx is app.ctx
    runtime = tmp_path / "rt" / "serve.json"
    info = json.loads(runtime.read_text(encoding="utf-8"))
    assert runtime.stat().st_mode & 0o777 == 0o600
    bearer = {"authorization": f"Bearer {info['token']}"}
    async with httpx2.AsyncClient(base_url=info["url"], trust_env=False, timeout=10) as client:
        listed = await client.post("/api/invoke/chats.list", json={}, headers=bearer)
        refused = await client.post("/api/invoke/chats.list", json={})
    assert listed.json() == {"ok": True, "data": {"chats": [], "next_before": None}}
    assert refused.status_code == 401
    async with connect(
        info["url"].replace("http", "ws", 1) + "/ws", additional_headers=bearer, proxy=None
    ) as ws:
        assert json.loads(await ws.recv())["event"] == "ready"
    await wrapped.local_api.stop()
    assert not runtime.exists()

"""Issue 40 item 6 over the served API: an empty key keeps the stored one, a blank one is
refused (nothing changes), `clear_key` removes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings.secrets import SecretStore, provider_key_name
from tests.api.conftest import AppMaker, make_app, paths, secrets, workspace  # noqa: F401
from tests.server.conftest import Served, serve_built

KEY = "sk-edge-key-1234567890"


async def _save(served: Served, client: Any, payload: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/api/invoke/providers.save", json=payload, headers=served.bearer)
    assert response.status_code == 200, response.text
    envelope: dict[str, Any] = response.json()
    return envelope


async def test_an_empty_key_keeps_the_only_providers_key_and_a_blank_one_is_refused(
    make_app: AppMaker,  # noqa: F811
    secrets: SecretStore,  # noqa: F811
    static_dir: Path,
) -> None:
    app, _ = await make_app()
    base = {"name": "Only", "kind": "chat_completions", "base_url": "http://127.0.0.1:9/v1"}
    async with serve_built(static_dir, app) as served, served.client() as client:
        created = await _save(served, client, {**base, "api_key": KEY})
        pid = created["data"]["id"]
        renamed = await _save(served, client, {**base, "id": pid, "name": "Renamed", "api_key": ""})
        assert renamed["ok"] and renamed["data"]["has_key"] is True
        assert secrets.get(provider_key_name(pid)) == KEY
        omitted = await _save(served, client, {**base, "id": pid})  # no api_key at all: kept too
        assert omitted["data"]["has_key"] is True
        blank = await _save(served, client, {**base, "id": pid, "name": "Blank", "api_key": "   "})
        assert not blank["ok"] and blank["error"]["code"] == "invalid"
        assert blank["error"]["key"] == "provider.blank_key"
        listed = (await client.post("/api/invoke/providers.list", json={}, headers=served.bearer)).json()
        assert [p["name"] for p in listed["data"]["providers"]] == ["Only"]  # nothing changed
        assert secrets.get(provider_key_name(pid)) == KEY
        both_payload = {**base, "id": pid, "api_key": "sk-other-123456789", "clear_key": True}
        both = await _save(served, client, both_payload)
        assert not both["ok"] and secrets.get(provider_key_name(pid)) == KEY
        cleared = await _save(served, client, {**base, "id": pid, "clear_key": True})
        assert cleared["ok"] and cleared["data"]["has_key"] is False
        assert secrets.get(provider_key_name(pid)) is None

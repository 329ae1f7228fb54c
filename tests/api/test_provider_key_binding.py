"""A stored provider key is bound to the host it was entered for (issue: re-targeting)."""

from __future__ import annotations

from app.contracts.replies import MASK
from app.settings.secrets import SecretStore, provider_key_name
from tests.api.conftest import VALID_KEY, AppMaker, err, ok

PAYLOAD = {"name": "P", "kind": "chat_completions", "base_url": "http://127.0.0.1:9/v1", "api_key": VALID_KEY}


async def test_moving_a_provider_to_another_host_with_the_masked_key_is_refused(
    make_app: AppMaker, secrets: SecretStore
) -> None:
    app, _ = await make_app()
    pid = (await ok(app, "providers.save", PAYLOAD))["id"]
    for url in ("http://localhost:9/v1", "http://127.0.0.1:10/v1", "https://127.0.0.1:9/v1"):
        error = await err(app, "providers.save", {**PAYLOAD, "id": pid, "base_url": url, "api_key": MASK})
        assert error["code"] == "invalid" and "enter the key again" in error["message"], url
        assert "api_key" in error["details"]
    listed = (await ok(app, "providers.list"))["providers"]
    assert listed[0]["base_url"] == PAYLOAD["base_url"]  # nothing changed
    assert secrets.get(provider_key_name(pid)) == VALID_KEY


async def test_same_host_keeps_the_key_and_a_new_host_takes_a_new_or_no_key(
    make_app: AppMaker, secrets: SecretStore
) -> None:
    app, _ = await make_app()
    pid = (await ok(app, "providers.save", PAYLOAD))["id"]
    same = {**PAYLOAD, "id": pid, "base_url": "http://127.0.0.1:9/other/v1", "api_key": MASK}
    assert (await ok(app, "providers.save", same))["has_key"] is True
    moved = {**PAYLOAD, "id": pid, "base_url": "http://localhost:9/v1", "api_key": "sk-new-key-123456"}
    assert (await ok(app, "providers.save", moved))["has_key"] is True
    assert secrets.get(provider_key_name(pid)) == "sk-new-key-123456"
    cleared = {**PAYLOAD, "id": pid, "base_url": "http://127.0.0.1:11/v1", "api_key": "", "clear_key": True}
    assert (await ok(app, "providers.save", cleared))["has_key"] is False

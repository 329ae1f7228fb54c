from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel

from app.api.route_types import ROUTE_TYPES
from app.contracts.replies import MASK, Empty, FolderPick
from app.contracts.tools import GrantKey
from app.settings.secrets import SecretStore, provider_key_name
from app.store.approvals import SqliteApprovalLedger
from tests.api.conftest import VALID_KEY, AppMaker, err, ok


async def test_every_route_in_the_table_has_a_handler(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert set(app.routes()) == set(ROUTE_TYPES)


async def test_adapter_only_routes_are_unsupported_until_an_adapter_registers_them(
    make_app: AppMaker,
) -> None:
    app, _ = await make_app()
    assert (await err(app, "desktop.pick_folder"))["code"] == "unsupported"

    async def pick(req: BaseModel) -> BaseModel:
        assert isinstance(req, Empty)
        return FolderPick(path="/tmp")

    app.register_route("desktop.pick_folder", pick)
    assert await ok(app, "desktop.pick_folder") == {"path": "/tmp"}


async def test_unknown_routes_and_bad_payloads_are_invalid_with_details(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await err(app, "nope.nothing"))["code"] == "invalid"
    error = await err(app, "chats.rename", {"chat_id": "x", "title": ""})
    assert error["code"] == "invalid" and "title" in error["details"]
    assert (await err(app, "chats.list", {"unexpected": 1}))["code"] == "invalid"
    not_a_mapping = await app.invoke("chats.list", ["x"])  # type: ignore[arg-type]
    assert not_a_mapping["ok"] is False and not_a_mapping["error"]["code"] == "invalid"


async def test_chats_can_be_created_listed_renamed_read_and_deleted(make_app: AppMaker) -> None:
    app, events = await make_app()
    chat = await ok(app, "chats.create", {})
    assert chat["title"] == "" and chat["running"] is False
    renamed = await ok(app, "chats.rename", {"chat_id": chat["id"], "title": "Plans"})
    assert renamed["title"] == "Plans"
    listed = await ok(app, "chats.list")
    assert [c["id"] for c in listed["chats"]] == [chat["id"]]
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert detail["messages"] == [] and detail["has_more"] is False
    await ok(app, "chats.delete", {"chat_id": chat["id"]})
    assert (await err(app, "chats.get", {"chat_id": chat["id"]}))["code"] == "not_found"
    assert [e.type for e in events.events] == ["session_updated", "session_deleted"]


async def test_malformed_chat_ids_are_refused_at_the_boundary(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await err(app, "chats.get", {"chat_id": "../../etc/passwd"}))["code"] == "invalid"


async def test_provider_keys_are_stored_in_the_keyring_and_never_returned(
    make_app: AppMaker, secrets: SecretStore
) -> None:
    app, _ = await make_app()
    payload = {
        "name": "Fake",
        "kind": "chat_completions",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": VALID_KEY,
    }
    view = await ok(app, "providers.save", payload)
    pid = view["id"]
    assert view["api_key"] == MASK and view["has_key"] is True
    assert secrets.get(provider_key_name(pid)) == VALID_KEY
    # the mask keeps the stored key
    await ok(app, "providers.save", {**payload, "id": pid, "name": "Renamed", "api_key": MASK})
    assert secrets.get(provider_key_name(pid)) == VALID_KEY
    listed = await ok(app, "providers.list")
    assert listed["providers"][0]["name"] == "Renamed"
    assert VALID_KEY not in repr(listed) and VALID_KEY not in repr(await ok(app, "settings.get"))
    # clear_key clears it
    cleared = await ok(app, "providers.save", {**payload, "id": pid, "api_key": "", "clear_key": True})
    assert cleared["has_key"] is False and cleared["api_key"] == ""
    assert secrets.get(provider_key_name(pid)) is None
    await ok(app, "providers.delete", {"provider_id": pid})
    assert (await ok(app, "providers.list"))["providers"] == []


async def test_saving_a_key_without_a_keychain_fails_plainly_and_saves_nothing(make_app: AppMaker) -> None:
    from keyring.backends import fail

    app, _ = await make_app(secrets=SecretStore(backend=fail.Keyring()))
    payload = {
        "name": "X",
        "kind": "chat_completions",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "sk-abc12345",
    }
    error = await err(app, "providers.save", payload)
    assert error["code"] == "keyring_unavailable" and "keychain" in error["message"].lower()
    assert "sk-abc12345" not in repr(error)
    assert (await ok(app, "providers.list"))["providers"] == []


async def test_app_info_reports_first_run_until_a_provider_exists(make_app: AppMaker) -> None:
    app, _ = await make_app()
    info = await ok(app, "app.info")
    assert info["first_run"] is True and info["keyring"]["available"] is True
    await ok(app, "providers.save", {"name": "L", "kind": "ollama", "base_url": "http://127.0.0.1:9"})
    assert (await ok(app, "app.info"))["first_run"] is False


async def test_the_workspace_setting_must_be_an_existing_folder_and_is_stored_as_a_real_path(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, _ = await make_app(workspace=None)
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    view = await ok(app, "settings.update", {"workspace": str(link), "approval_mode": "autonomous"})
    assert view["workspace"] == os.path.realpath(real) and view["approval_mode"] == "autonomous"
    assert (await err(app, "settings.update", {"workspace": str(tmp_path / "missing")}))["code"] == "invalid"
    assert (await err(app, "settings.update", {"max_iterations": 0}))["code"] == "invalid"
    assert (await ok(app, "settings.get"))["workspace"] == os.path.realpath(real)


async def test_grants_are_listed_and_revoked(make_app: AppMaker) -> None:
    app, _ = await make_app()
    ledger: SqliteApprovalLedger = app.ctx.ledger
    grant = ledger.add(GrantKey(kind="exec", key=("/usr/bin/touch", "x"), workspace="/w"))
    listed = await ok(app, "approvals.list")
    assert listed["grants"][0]["key"] == ["/usr/bin/touch", "x"]
    await ok(app, "approvals.revoke", {"grant_id": grant.id})
    assert (await ok(app, "approvals.list"))["grants"] == []
    assert (await err(app, "approvals.revoke", {"grant_id": grant.id}))["code"] == "not_found"


async def test_tools_are_listed_with_their_effective_policy(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await ok(app, "settings.update", {"tool_policies": {"read_file": "never"}})
    tools = {t["name"]: t for t in (await ok(app, "tools.list"))["tools"]}
    assert tools["read_file"]["policy"] == "never"
    assert tools["write_file"]["policy"] == "ask" and tools["write_file"]["read_only"] is False


async def test_approving_an_unknown_request_is_not_found(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await err(app, "chat.approve", {"approval_id": "nope", "decision": "once"}))[
        "code"
    ] == "not_found"


async def test_sending_without_any_model_choice_is_invalid(make_app: AppMaker) -> None:
    app, _ = await make_app()
    chat = await ok(app, "chats.create", {})
    error = await err(app, "chat.send", {"chat_id": chat["id"], "text": "hi"})
    assert error["code"] == "invalid" and "model" in error["message"]


async def test_retry_without_a_failed_turn_is_not_found(make_app: AppMaker) -> None:
    app, _ = await make_app()
    chat = await ok(app, "chats.create", {})
    assert (await err(app, "chat.retry", {"chat_id": chat["id"]}))["code"] == "not_found"


async def test_ollama_detection_reports_not_running_on_a_closed_port(make_app: AppMaker) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app, _ = await make_app(env={"OLLAMA_HOST": f"127.0.0.1:{port}"})
    probe = await ok(app, "app.detect_ollama")
    assert probe["found"] is False and probe["base_url"] == f"http://127.0.0.1:{port}"
    assert "not running" in probe["message"]


async def test_sending_to_an_unknown_provider_is_not_found(make_app: AppMaker) -> None:
    app, _ = await make_app()
    chat = await ok(app, "chats.create", {})
    payload = {"chat_id": chat["id"], "text": "hi", "model": {"provider_id": "nope", "model": "m"}}
    assert (await err(app, "chat.send", payload))["code"] == "not_found"
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["chat"]["running"] is False


async def test_app_info_reports_the_version_of_pyproject(make_app: AppMaker) -> None:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    app, _ = await make_app()
    info = await ok(app, "app.info")
    assert info["version"] == tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]

"""The stdio confirmation covers the whole launch spec, not only argv (issue 23 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, err, ok
from tests.mcp.helpers import add_rough, server


async def test_an_env_change_after_confirmation_asks_again(make_app: AppMaker) -> None:
    app, _ = await make_app()
    confirmed = await add_rough(app, env={"MODE": "calm"})
    assert not confirmed["needs_confirmation"]
    edited = await ok(
        app, "mcp.servers.update", {"name": "rough", "env": {"MODE": "calm", "LD_PRELOAD": "/tmp/evil.so"}}
    )
    assert edited["needs_confirmation"] and edited["loader_env"] == ["LD_PRELOAD"]
    refused = await err(app, "mcp.servers.connect", {"name": "rough"})
    assert refused["code"] == "conflict"
    assert "LD_PRELOAD=/tmp/evil.so" in refused["message"] and "WARNING" in refused["message"]
    assert not (await ok(app, "mcp.servers.confirm", {"name": "rough"}))["needs_confirmation"]


async def test_a_hand_edited_env_in_the_catalog_file_is_not_confirmed(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, _ = await make_app()
    await add_rough(app, env={"MODE": "calm"})
    catalog: Path = paths.data_dir / "mcp" / "servers.json"
    data = json.loads(catalog.read_text())
    data["servers"]["rough"]["env"]["NODE_OPTIONS"] = "--require /tmp/evil.js"
    catalog.write_text(json.dumps(data))
    listed = server(await ok(app, "mcp.servers.list"), "rough")
    assert listed["needs_confirmation"] and listed["loader_env"] == ["NODE_OPTIONS"]
    assert (await err(app, "mcp.servers.connect", {"name": "rough"}))["code"] == "conflict"


async def test_a_new_secret_variable_name_asks_again_but_a_new_secret_value_does_not(
    make_app: AppMaker,
) -> None:
    app, _ = await make_app()
    await add_rough(app, env={"TOKEN_A": "one"}, secret_env=["TOKEN_A"])
    same_names = await ok(app, "mcp.servers.update", {"name": "rough", "env": {"TOKEN_A": "two"}})
    assert not same_names["needs_confirmation"]  # the user's own keyring value, same variable
    more = await ok(
        app,
        "mcp.servers.update",
        {"name": "rough", "env": {"TOKEN_A": "two", "PATH": "/tmp/bin"}, "secret_env": ["TOKEN_A"]},
    )
    assert more["needs_confirmation"] and more["loader_env"] == ["PATH"]

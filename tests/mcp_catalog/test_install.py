"""Installing catalog servers for real: `mcp-server-time` (PyPI, through the bundled uv) and
`@modelcontextprotocol/server-memory` (npm, with the machine's Node) into the test app's cache
folder, then calling a tool through `cashcode mcp call` and through the agent loop
(tool_search -> mcp_prepare -> mcp_<server>_<tool>). uv's and npm's download caches live in
`.cache/test-deps/` (gitignored) so later runs do not download again; the installs do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired
from app.mcp_catalog.events import McpCatalogProgress
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send
from tests.cli.conftest import base_env, cashcode

REPO = Path(__file__).resolve().parents[2]
DOWNLOADS = {"CASHCODE_MCP_DOWNLOAD_CACHE": str(REPO / ".cache" / "test-deps" / "mcp-downloads")}
INSTALL_TIMEOUT_S = 900


def offered(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


def tool_outputs(request: Any) -> list[str]:
    return [str(m.get("content")) for m in request.body["messages"] if m.get("role") == "tool"]


async def run_through_agent(
    app: Any, events: Recorder, fake_llm: Any, server: str, tool: str, arguments: dict[str, Any]
) -> str:
    """One turn: search, prepare the server, call its tool (approved once); the tool's text."""
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    name = f"mcp_{server}_{tool}"
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": server}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": server}}]},
        {"tool_calls": [{"name": name, "arguments": arguments}]},
        {"text": "done"},
    )
    turn = await send(app, chat, f"use the {server} server", pid)
    await events.until(
        lambda: "approval_required" in events.types(turn) or "turn_done" in events.types(turn), 120
    )
    for pending in [e for e in events.of(ApprovalRequired) if e.turn_id == turn]:
        assert pending.tool == name
        await ok(app, "chat.approve", {"approval_id": pending.approval_id, "decision": "once"})
    assert (await events.turn_end(turn, 120)).type == "turn_done"
    third, fourth = fake_llm.model_requests()[-2:]
    assert name in offered(third)
    return tool_outputs(fourth)[-1]


async def test_mcp_server_time_installs_through_uv_into_the_cache_and_runs_in_a_turn(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app(env=DOWNLOADS)
    listed = await ok(app, "mcp_catalog.list", {"search": "time zone"})
    assert [s["id"] for s in listed["servers"]] == ["time"] and not listed["servers"][0]["installed"]
    plan = await ok(app, "mcp_catalog.plan", {"name": "mcp-server-time"})
    assert plan["commands"][-1].endswith(
        "pip install --python " + f"{plan['folder']}/venv/bin/python mcp-server-time==2026.10.19"
    )
    done = await ok(
        app, "mcp_catalog.install", {"name": "mcp-server-time", "inputs": {"timezone": ["Asia/Shanghai"]}}
    )
    folder = paths.cache_dir / "mcp_servers" / "time"
    assert done["argv"] == [
        str(folder / "venv" / "bin" / "mcp-server-time"),
        "--local-timezone",
        "Asia/Shanghai",
    ]
    shown = [e.text for e in events.of(McpCatalogProgress) if e.kind == "command"]
    assert shown == plan["commands"] == done["commands"]
    view = await ok(app, "mcp.servers.get", {"name": "time"})
    assert view["source"] == "user" and view["editable"] and not view["needs_confirmation"]
    text = await run_through_agent(app, events, fake_llm, "time", "get_current_time", {"timezone": "UTC"})
    assert json.loads(text)["timezone"] == "UTC"
    assert (await ok(app, "mcp_catalog.list", {"search": "time"}))["servers"][0]["installed"]

    again = await err(app, "mcp_catalog.install", {"name": "time"})
    assert again["code"] == "conflict" and "uninstall" in again["message"]
    removed = await ok(app, "mcp_catalog.uninstall", {"name": "time"})
    assert removed == {"server": "time", "removed_entry": True, "removed_files": True}
    assert not folder.exists()
    assert "time" not in {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}


async def test_server_memory_installs_with_npm_and_runs_in_a_turn(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app(env=DOWNLOADS)
    done = await ok(app, "mcp_catalog.install", {"name": "@modelcontextprotocol/server-memory"})
    assert done["commands"][0].split()[1:] == [
        "install",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--prefix",
        str(paths.cache_dir / "mcp_servers" / "memory"),
        "@modelcontextprotocol/server-memory@2026.8.31",
    ]
    view = await ok(app, "mcp.servers.get", {"name": "memory"})
    memory_file = paths.data_dir / "mcp_catalog" / "memory" / "memory.jsonl"
    assert view["env"] == {"MEMORY_FILE_PATH": str(memory_file)}
    arguments = {"entities": [{"name": "Cash", "entityType": "person", "observations": ["likes tea"]}]}
    text = await run_through_agent(app, events, fake_llm, "memory", "create_entities", arguments)
    assert "Cash" in text and "likes tea" in memory_file.read_text(encoding="utf-8")
    # removed as an ordinary entry: the install goes at the next listing, the user's data stays
    await ok(app, "mcp.servers.delete", {"name": "memory"})
    await ok(app, "mcp_catalog.list")
    assert not (paths.cache_dir / "mcp_servers" / "memory").exists() and memory_file.exists()


def test_the_cli_installs_calls_and_uninstalls_both(tmp_path: Path) -> None:
    env = {**base_env(tmp_path), **DOWNLOADS}
    listed = cashcode("mcp", "catalog", "--json", env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert {"time", "memory", "git"} <= {s["id"] for s in json.loads(listed.stdout)["servers"]}
    for name, server, tool, args, expect in (
        (
            "mcp-server-time",
            "time",
            "convert_time",
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            "21:00",
        ),
        ("@modelcontextprotocol/server-memory", "memory", "read_graph", {}, "entities"),
    ):
        refused = cashcode("mcp", "install", name, env=env, cwd=tmp_path)  # no --yes, no terminal
        assert refused.returncode == 1 and "--yes" in refused.stderr
        installed = cashcode(
            "mcp", "install", name, "--yes", env=env, cwd=tmp_path, timeout=INSTALL_TIMEOUT_S
        )
        assert installed.returncode == 0, installed.stderr
        assert "$ " in installed.stdout and f"Installed {server}:" in installed.stdout
        called = cashcode(
            "mcp", "call", server, tool, "--args", json.dumps(args), env=env, cwd=tmp_path, timeout=120
        )
        assert called.returncode == 0 and expect in called.stdout, called.stderr
        gone = cashcode("mcp", "uninstall", server, env=env, cwd=tmp_path)
        assert gone.returncode == 0 and "entry and its files removed" in gone.stdout
        assert not (tmp_path / "cache" / "mcp_servers" / server).exists()


async def test_bad_inputs_are_refused_and_nothing_is_installed(make_app: AppMaker, paths: AppPaths) -> None:
    app, _ = await make_app(env=DOWNLOADS)
    unknown = await err(app, "mcp_catalog.install", {"name": "git", "inputs": {"repo": ["/x"]}})
    assert unknown["code"] == "invalid" and "has no input 'repo'" in unknown["message"]
    missing = await err(
        app, "mcp_catalog.install", {"name": "git", "inputs": {"repository": ["/no/such/folder"]}}
    )
    assert "does not exist" in missing["message"]
    relative = await err(app, "mcp_catalog.install", {"name": "filesystem", "inputs": {"folders": ["docs"]}})
    assert "absolute path" in relative["message"]
    nope = await err(app, "mcp_catalog.install", {"name": "no-such-server"})
    assert nope["code"] == "not_found"
    assert not (paths.cache_dir / "mcp_servers").exists()
    assert not {"git", "filesystem"} & {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}


async def test_without_node_the_catalog_says_so_and_npm_installs_are_refused(
    make_app: AppMaker, paths: AppPaths, tmp_path: Path
) -> None:
    app, _ = await make_app(env={**DOWNLOADS, "PATH": str(tmp_path / "empty")})
    listed = await ok(app, "mcp_catalog.list")
    assert "Node.js 18 or newer" in listed["node_problem"]
    by_id = {s["id"]: s for s in listed["servers"]}
    assert by_id["memory"]["problem"] == listed["node_problem"] and by_id["time"]["problem"] == ""
    refused = await err(app, "mcp_catalog.install", {"name": "memory"})
    assert "Install Node.js" in refused["message"]
    assert not (paths.cache_dir / "mcp_servers").exists()


async def test_the_builtin_test_servers_are_not_in_the_users_catalog(make_app: AppMaker) -> None:
    user_app, _ = await make_app(env={"CASHCODE_MCP_TEST_SERVERS": ""})
    assert (await ok(user_app, "mcp.servers.list"))["servers"] == []
    test_app, _ = await make_app()  # the rig turns them on (tests/api/conftest.py)
    names = {s["name"] for s in (await ok(test_app, "mcp.servers.list"))["servers"]}
    assert {"test_stdio_mcp", "test_sse_mcp", "test_http_mcp"} <= names


async def test_a_failed_install_says_why_and_leaves_no_folder(tmp_path: Path) -> None:
    import os

    from app.mcp_catalog.data import catalog_path, load_catalog
    from app.mcp_catalog.installer import Installer, InstallError
    from app.mcp_catalog.toolchain import find_toolchain

    time = load_catalog(catalog_path()).find("time")
    assert time is not None
    missing = time.model_copy(update={"package": time.package.model_copy(update={"version": "0.0.0.1"})})
    env = dict(os.environ)
    downloads = Path(DOWNLOADS["CASHCODE_MCP_DOWNLOAD_CACHE"])
    installer = Installer(tmp_path / "servers", downloads, find_toolchain(env), env)
    lines: list[tuple[str, str]] = []
    with pytest.raises(InstallError) as caught:
        await installer.run(installer.plan(missing), lambda kind, text: lines.append((kind, text)))
    assert "the install failed" in str(caught.value) and "mcp-server-time==0.0.0.1" in str(caught.value)
    assert [k for k, _ in lines].count("command") == 2
    assert not (tmp_path / "servers" / "time").exists() and not installer.is_installed("time")


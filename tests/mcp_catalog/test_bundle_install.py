"""MCP Bundles packed in the test with the real `mcpb` CLI (bundle_kit.py), previewed, installed
with their user_config (a sensitive value goes to the keyring and into no file) and called
through `cashcode mcp call` and through the agent loop (tool_search -> mcp_prepare -> call).
The python bundle runs on a bare venv uv makes (the bundle's own `server/lib` on PYTHONPATH),
the node bundle with the machine's Node and its bundled node_modules."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from app.mcp_catalog.events import McpCatalogProgress
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from tests.api.conftest import AppMaker, err, ok
from tests.cli.conftest import base_env, cashcode
from tests.mcp_catalog.bundle_kit import mcpb_cli, node_bundle, python_bundle
from tests.mcp_catalog.test_install import DOWNLOADS, INSTALL_TIMEOUT_S, run_through_agent

TOKEN = "tok-Very-Secret-4242"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    cli = mcpb_cli()
    work = tmp_path_factory.mktemp("bundles")
    return {"python": python_bundle(cli, work), "node": node_bundle(cli, work)}


def files_holding(root: Path, needle: str, skip: Path | None = None) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and path != skip and needle.encode() in path.read_bytes():
            found.append(path)
    return found


async def test_a_python_bundle_previews_installs_and_runs_in_a_turn(
    make_app: AppMaker,
    fake_llm: Any,
    paths: AppPaths,
    secrets: SecretStore,
    tmp_path: Path,
    packed: dict[str, Path],
) -> None:
    app, events = await make_app(env=DOWNLOADS)
    root = tmp_path / "shout-root"
    root.mkdir()
    source = {"path": str(packed["python"])}
    preview = await ok(app, "mcp_catalog.bundle_preview", source)
    folder = paths.cache_dir / "mcp_servers" / "shout-kit"
    assert not folder.exists()  # a preview installs nothing
    assert (preview["id"], preview["display_name"], preview["version"]) == ("shout-kit", "Shout Kit", "0.4.1")
    assert preview["author"] == {"name": "Test Author", "email": "author@example.com", "url": ""}
    assert preview["server_type"] == "python" and preview["manifest_version"] == "0.3"
    assert preview["tools"] == [{"name": "shout", "description": "Shout a text back"}]
    by_key = {o["key"]: o for o in preview["options"]}
    assert by_key["token"]["sensitive"] and by_key["token"]["required"] and by_key["token"]["default"] == []
    assert by_key["root"]["type"] == "directory" and by_key["loud"]["default"] == ["true"]
    assert "token" in preview["input_problem"]  # required and not given yet
    # ... with its catalog entry, so the UI words it in its own language (issue 41)
    assert preview["input_problem_key"] == "bundle.input.missing"
    assert preview["input_problem_params"]["option"] == "token"
    assert preview["argv"][:2] == [
        str(folder / "venv" / "bin" / "python"),
        str(folder / "server" / "main.py"),
    ]
    assert preview["commands"][0] == f"unpack shout-kit.mcpb into {folder}"
    assert " venv --quiet " in preview["commands"][1]

    missing = await err(app, "mcp_catalog.bundle_install", source)
    assert missing["code"] == "invalid" and "needs the option 'token'" in missing["message"]
    gone = {"token": [TOKEN], "root": [str(tmp_path / "gone")]}
    no_folder = await ok(app, "mcp_catalog.bundle_preview", {**source, "inputs": gone})
    assert no_folder["input_problem"] == f"the folder '{tmp_path / 'gone'}' of 'root' does not exist"
    assert no_folder["input_problem_key"] == "bundle.input.no_folder"
    assert no_folder["input_problem_params"] == {"option": "root", "folder": str(tmp_path / "gone")}
    assert missing["key"] == "bundle.input.missing"  # worded in the UI's language (issue 41)
    assert not folder.exists()

    inputs = {"token": [TOKEN], "root": [str(root)], "loud": ["true"]}
    filled = await ok(app, "mcp_catalog.bundle_preview", {**source, "inputs": inputs})
    assert filled["input_problem"] == "" and filled["argv"][-2:] == ["--root", str(root)]
    assert filled["env"]["SHOUT_TOKEN"] == "********" and TOKEN not in json.dumps(filled)
    done = await ok(app, "mcp_catalog.bundle_install", {**source, "inputs": inputs})
    assert done["argv"] == filled["argv"] and done["commands"] == filled["commands"]
    shown = [e.text for e in events.of(McpCatalogProgress) if e.kind == "command"]
    assert shown == done["commands"]
    assert (folder / ".cashcode-install.json").is_file()

    view = await ok(app, "mcp.servers.get", {"name": "shout-kit"})
    assert view["source"] == "user" and view["editable"] and not view["needs_confirmation"]
    assert view["secret_env"] == ["SHOUT_TOKEN"] and view["env"]["SHOUT_TOKEN"] == "********"
    assert view["env"]["PYTHONPATH"] == str(folder / "server" / "lib")
    assert secrets.get("mcp:shout-kit:env:SHOUT_TOKEN") == TOKEN  # the keyring holds it
    assert files_holding(paths.data_dir.parent, TOKEN) == []  # data, config, logs, cache: nowhere

    text = await run_through_agent(app, events, fake_llm, "shout-kit", "shout", {"text": "hello"})
    assert text == f"HELLO! token-sha={sha(TOKEN)} root={root}"

    again = await err(app, "mcp_catalog.bundle_install", {**source, "inputs": inputs})
    assert again["code"] == "conflict" and "uninstall" in again["message"]
    assert (await ok(app, "mcp_catalog.bundle_preview", source))["conflict"]
    removed = await ok(app, "mcp_catalog.uninstall", {"name": "shout-kit"})
    assert removed == {"server": "shout-kit", "removed_entry": True, "removed_files": True}
    assert not folder.exists()
    assert "shout-kit" not in {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}


async def test_a_node_bundle_uploaded_from_the_browser_installs_and_runs_in_a_turn(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths, secrets: SecretStore, packed: dict[str, Path]
) -> None:
    import base64

    app, events = await make_app(env=DOWNLOADS)
    data = base64.b64encode(packed["node"].read_bytes()).decode()
    upload = {"data_base64": data, "filename": "greet-kit.mcpb"}
    preview = await ok(app, "mcp_catalog.bundle_preview", upload)
    assert preview["id"] == "greet-kit" and preview["server_type"] == "node"
    node = preview["argv"][0]
    folder = paths.cache_dir / "mcp_servers" / "greet-kit"
    assert preview["argv"] == [node, str(folder / "server" / "index.js"), "Hello", "1"]
    assert preview["problem"] == "" and preview["input_problem"] == ""
    wrong = await err(app, "mcp_catalog.bundle_preview", {**upload, "filename": "greet-kit.zip"})
    assert wrong["code"] == "invalid" and ".mcpb" in wrong["message"]
    too_many = await err(app, "mcp_catalog.bundle_install", {**upload, "inputs": {"times": ["9"]}})
    assert "at most 3" in too_many["message"] and not folder.exists()
    assert (too_many["key"], too_many["params"]) == ("bundle.input.max", {"option": "times", "limit": "3"})
    inputs = {"prefix": ["Hi"], "times": ["2"], "key": [TOKEN]}
    done = await ok(app, "mcp_catalog.bundle_install", {**upload, "inputs": inputs})
    assert done["argv"] == [node, str(folder / "server" / "index.js"), "Hi", "2"]
    assert not any((paths.cache_dir / "mcp_bundle_uploads").iterdir())
    assert secrets.get("mcp:greet-kit:env:GREET_KEY") == TOKEN
    assert files_holding(paths.data_dir.parent, TOKEN) == []
    text = await run_through_agent(app, events, fake_llm, "greet-kit", "greet", {"name": "Ann"})
    assert text == f"Hi, Ann.Hi, Ann. key-sha={sha(TOKEN)}"
    # removed as an ordinary entry: the bundle's folder goes at the next catalog listing
    await ok(app, "mcp.servers.delete", {"name": "greet-kit"})
    await ok(app, "mcp_catalog.list")
    assert not folder.exists()


def test_the_cli_installs_both_bundles_calls_them_and_uninstalls(
    tmp_path: Path, packed: dict[str, Path]
) -> None:
    env = {**base_env(tmp_path), **DOWNLOADS}
    root = tmp_path / "root"
    root.mkdir()
    refused = cashcode(
        "mcp", "install", str(packed["python"]), "--input", f"token={TOKEN}", env=env, cwd=tmp_path
    )
    assert refused.returncode == 1 and "--yes" in refused.stderr  # no terminal to ask on
    assert "Shout Kit 0.4.1 by Test Author" in refused.stdout and "tools: shout" in refused.stdout
    missing = cashcode("mcp", "install", str(packed["python"]), "--yes", env=env, cwd=tmp_path)
    assert missing.returncode == 1 and "needs the option 'token'" in missing.stderr
    assert "add --input token=VALUE" in missing.stderr  # the CLI's own advice (issue 40 item 18)
    for bundle, inputs, server, tool, args, expect in (
        (
            packed["python"],
            [f"token={TOKEN}", f"root={root}", "loud=no"],
            "shout-kit",
            "shout",
            {"text": "quiet"},
            f"quiet token-sha={sha(TOKEN)} root={root}",
        ),
        (packed["node"], [f"key={TOKEN}", "prefix=Hey"], "greet-kit", "greet", {"name": "Bo"}, "Hey, Bo."),
    ):
        flags = [f for item in inputs for f in ("--input", item)]
        installed = cashcode(
            "mcp", "install", str(bundle), *flags, "--yes", env=env, cwd=tmp_path, timeout=INSTALL_TIMEOUT_S
        )
        assert installed.returncode == 0, installed.stderr
        assert f"Installed {server}:" in installed.stdout and "$ unpack " in installed.stdout
        assert TOKEN not in installed.stdout + installed.stderr
        called = cashcode(
            "mcp", "call", server, tool, "--args", json.dumps(args), env=env, cwd=tmp_path, timeout=120
        )
        assert called.returncode == 0 and expect in called.stdout, called.stderr
        if server == "greet-kit":
            assert f"key-sha={sha(TOKEN)}" in called.stdout
    keyring_file = tmp_path / "keyring.json"
    assert TOKEN in keyring_file.read_text(encoding="utf-8")
    assert files_holding(tmp_path, TOKEN, skip=keyring_file) == []
    for server in ("shout-kit", "greet-kit"):
        gone = cashcode("mcp", "uninstall", server, env=env, cwd=tmp_path)
        assert gone.returncode == 0 and "entry and its files removed" in gone.stdout
        assert not (tmp_path / "cache" / "mcp_servers" / server).exists()
    nothing = cashcode("mcp", "install", str(tmp_path / "missing.mcpb"), "--yes", env=env, cwd=tmp_path)
    assert nothing.returncode == 1 and "no such file" in nothing.stderr


async def test_a_signed_bundle_is_read_its_signature_is_not_checked(
    make_app: AppMaker, tmp_path: Path, packed: dict[str, Path]
) -> None:
    """`mcpb sign` appends a PKCS#7 block after the ZIP; the archive still reads (decision 219)."""
    import shutil

    from tests.mcp_catalog.bundle_kit import mcpb

    signed = tmp_path / "signed.mcpb"
    shutil.copyfile(packed["node"], signed)
    mcpb(mcpb_cli(), "sign", str(signed), "--self-signed", cwd=tmp_path)
    assert signed.stat().st_size > packed["node"].stat().st_size
    app, _ = await make_app()
    preview = await ok(app, "mcp_catalog.bundle_preview", {"path": str(signed)})
    assert preview["id"] == "greet-kit" and preview["tools"][0]["name"] == "greet"

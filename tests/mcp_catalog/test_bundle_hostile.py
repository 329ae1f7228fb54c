"""Hostile and unusable MCP Bundles are refused with a clear reason, by the preview and by the
install (route and CLI), and leave nothing behind: no folder in the cache, no upload, no entry
in servers.json."""

from __future__ import annotations

import base64
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, err, ok
from tests.cli.conftest import base_env, cashcode
from tests.mcp_catalog import bundle_kit as kit

Maker = Callable[[Path], Path]


def _platform_bundle(path: Path) -> Path:
    manifest = json.loads(json.dumps(kit.GOOD_MANIFEST))
    manifest["compatibility"] = {"platforms": ["darwin", "win32"]}
    return kit.write_zip(path, manifest, [])


def _secret_in_args(path: Path) -> Path:
    manifest = json.loads(json.dumps(kit.GOOD_MANIFEST))
    manifest["server"]["mcp_config"]["args"].append("${user_config.key}")
    manifest["user_config"] = {
        "key": {"type": "string", "title": "Key", "description": "secret", "sensitive": True}
    }
    return kit.write_zip(path, manifest, [])


def _shell_command(path: Path) -> Path:
    manifest = json.loads(json.dumps(kit.GOOD_MANIFEST))
    manifest["server"]["mcp_config"]["command"] = "bash"
    return kit.write_zip(path, manifest, [])


def _binary_outside(path: Path) -> Path:
    manifest = json.loads(json.dumps(kit.GOOD_MANIFEST))
    manifest["server"]["type"] = "binary"
    manifest["server"]["mcp_config"] = {"command": "/bin/sh", "args": ["-c", "id"]}
    return kit.write_zip(path, manifest, [])


def _device(path: Path) -> Path:
    info = zipfile.ZipInfo("server/tty")
    info.create_system = 3
    info.external_attr = (0o020000 | 0o666) << 16  # a character device
    return kit.write_zip(path, kit.GOOD_MANIFEST, [(info, b"")])


CASES: list[tuple[str, Maker, str, str]] = [
    ("traversal", kit.traversal_bundle, "zip.traversal", "tries to leave the bundle folder"),
    ("symlink", kit.symlink_bundle, "zip.symlink", "is a symbolic link; links are refused"),
    ("entry-outside", kit.outside_entry_bundle, "manifest", "points outside the bundle"),
    ("claimed-2gb", kit.claimed_size_bundle, "zip.file_size", "'server/blob.bin' is larger than 256 MiB"),
    (
        "type-uv",
        lambda p: kit.unknown_type_bundle(p, "uv"),
        "manifest",
        "server.type 'uv' is not supported: CashCode runs node, python and binary bundles",
    ),
    (
        "type-ruby",
        lambda p: kit.unknown_type_bundle(p, "ruby"),
        "manifest",
        "server.type 'ruby' is not supported",
    ),
    ("no-manifest", lambda p: kit.write_zip(p, None, []), "manifest", "no manifest.json at its root"),
    ("platform", _platform_bundle, "platform", "made for darwin, win32 only"),
    ("secret-in-args", _secret_in_args, "manifest", "a sensitive value must go into server.mcp_config.env"),
    ("device", _device, "zip.special", "is a device, pipe or socket"),
]


@pytest.mark.parametrize(("label", "make", "rule", "reason"), CASES, ids=[c[0] for c in CASES])
async def test_a_hostile_bundle_is_refused_and_leaves_nothing(
    make_app: AppMaker, paths: AppPaths, tmp_path: Path, label: str, make: Maker, rule: str, reason: str
) -> None:
    app, _ = await make_app()
    bundle = make(tmp_path / f"{label}.mcpb")
    before = {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}
    servers_json = paths.config_dir / "mcp" / "servers.json"
    for route in ("mcp_catalog.bundle_preview", "mcp_catalog.bundle_install"):
        refused = await err(app, route, {"path": str(bundle)})
        assert refused["code"] == "invalid", refused
        assert refused["message"].startswith("the bundle is refused: ") and reason in refused["message"]
        assert refused["details"] == {"rule": rule}
        upload = {"data_base64": base64.b64encode(bundle.read_bytes()).decode(), "filename": bundle.name}
        assert reason in (await err(app, route, upload))["message"]
    assert not (tmp_path / "escaped.js").exists() and not (paths.cache_dir / "escaped.js").exists()
    servers = paths.cache_dir / "mcp_servers"
    assert not servers.exists() or not any(servers.iterdir())
    assert not any((paths.cache_dir / "mcp_bundle_uploads").iterdir())
    assert {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]} == before
    assert not servers_json.exists() or "evil" not in servers_json.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_shell_command, "a node bundle runs node, but this one runs 'bash'"),
        (_binary_outside, "is not a file of the bundle"),
    ],
    ids=["node-runs-bash", "binary-outside"],
)
async def test_a_command_the_bundle_type_does_not_run_is_refused(
    make_app: AppMaker, paths: AppPaths, tmp_path: Path, make: Maker, reason: str
) -> None:
    app, _ = await make_app()
    bundle = make(tmp_path / "cmd.mcpb")
    for route in ("mcp_catalog.bundle_preview", "mcp_catalog.bundle_install"):
        refused = await err(app, route, {"path": str(bundle)})
        assert refused["code"] == "invalid" and reason in refused["message"], refused
    assert not (paths.cache_dir / "mcp_servers").exists()


async def test_a_bundle_refused_while_unpacking_removes_its_folder(
    make_app: AppMaker, paths: AppPaths, tmp_path: Path
) -> None:
    """A member whose bytes do not match its header is found only while writing: the half-made
    folder goes."""
    bundle = kit.write_zip(
        tmp_path / "liar.mcpb", kit.GOOD_MANIFEST, [(zipfile.ZipInfo("server/data.txt"), b"y" * 500)]
    )
    data = bytearray(bundle.read_bytes())
    at = data.rfind(b"PK\x01\x02")
    data[at + 24 : at + 28] = (100).to_bytes(4, "little")  # claims less than it holds
    bundle.write_bytes(bytes(data))
    app, _ = await make_app()
    await ok(app, "mcp_catalog.bundle_preview", {"path": str(bundle)})  # the directory alone looks fine
    refused = await err(app, "mcp_catalog.bundle_install", {"path": str(bundle)})
    assert refused["code"] == "invalid" and "server/data.txt" in refused["message"]
    assert not (paths.cache_dir / "mcp_servers" / "evil-kit").exists()
    assert "evil-kit" not in {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}


def test_the_cli_says_why_and_installs_nothing(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    for make, reason in (
        (kit.traversal_bundle, "tries to leave the bundle folder"),
        (kit.claimed_size_bundle, "is larger than 256 MiB"),
        (lambda p: kit.unknown_type_bundle(p, "uv"), "server.type 'uv' is not supported"),
    ):
        bundle = make(tmp_path / "bad.mcpb")
        refused = cashcode("mcp", "install", str(bundle), "--yes", env=env, cwd=tmp_path)
        assert (
            refused.returncode == 1 and "the bundle is refused" in refused.stderr and reason in refused.stderr
        )
        bundle.unlink()
    assert not (tmp_path / "cache" / "mcp_servers").exists()
    servers = cashcode("mcp", "list", "--json", env={**env, "CASHCODE_MCP_TEST_SERVERS": ""}, cwd=tmp_path)
    assert json.loads(servers.stdout) == []


def _loader_bundle(path: Path, env: dict[str, str]) -> Path:
    manifest = json.loads(json.dumps(kit.GOOD_MANIFEST))
    manifest["server"]["mcp_config"]["env"] = env
    return kit.write_zip(path, manifest, [])


def test_a_bundles_loader_variable_is_shown_and_needs_its_own_confirmation(tmp_path: Path) -> None:
    """Issue 33 item 2: `NODE_OPTIONS` from a bundle's manifest is called out and refused unless
    the user allows it separately (--yes never does); a search path inside the bundle's own
    folder is the bundle's code and asks nothing."""
    env = base_env(tmp_path)
    evil = _loader_bundle(tmp_path / "evil.mcpb", {"NODE_OPTIONS": "--require=/tmp/owned.js", "MODE": "calm"})
    refused = cashcode("mcp", "install", str(evil), "--yes", env=env, cwd=tmp_path)
    assert refused.returncode == 1
    assert "with NODE_OPTIONS=--require=/tmp/owned.js" in refused.stdout
    assert "with MODE=calm" in refused.stdout
    assert "WARNING: NODE_OPTIONS change which code" in refused.stdout
    assert "--allow-loader-env" in refused.stderr
    assert not (tmp_path / "cache" / "mcp_servers" / "evil-kit").exists()
    allowed = cashcode("mcp", "install", str(evil), "--yes", "--allow-loader-env", env=env, cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    listed = cashcode("mcp", "list", env=env, cwd=tmp_path)
    assert "NODE_OPTIONS=--require=/tmp/owned.js" in listed.stdout
    assert cashcode("mcp", "uninstall", "evil-kit", env=env, cwd=tmp_path).returncode == 0

    own = _loader_bundle(tmp_path / "own.mcpb", {"NODE_PATH": "${__dirname}/server"})
    plain = cashcode("mcp", "install", str(own), "--yes", env=env, cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "WARNING" not in plain.stdout


KEYED: list[tuple[str, Maker, str, dict[str, str]]] = [
    ("no-manifest", lambda p: kit.write_zip(p, None, []), "bundle.archive.no_manifest", {}),
    ("platform", _platform_bundle, "bundle.archive.platform", {"platforms": "darwin, win32"}),
    ("type-uv", lambda p: kit.unknown_type_bundle(p, "uv"), "bundle.manifest.uv_type", {}),
    ("type-ruby", lambda p: kit.unknown_type_bundle(p, "ruby"), "bundle.manifest.bad_type", {"type": "ruby"}),
    ("secret-in-args", _secret_in_args, "bundle.manifest.secret_on_command", {"option": "key"}),
    ("entry-outside", kit.outside_entry_bundle, "bundle.manifest.outside", {"field": "server.entry_point"}),
    # The ZIP rules shared with Skill import carry theirs too (their English unchanged).
    ("zip-traversal", kit.traversal_bundle, "zip.traversal", {"name": "server/../../escaped.js"}),
    ("zip-symlink", kit.symlink_bundle, "zip.symlink", {"name": "server/secrets"}),
]


@pytest.mark.parametrize(("label", "make", "key", "params"), KEYED, ids=[c[0] for c in KEYED])
async def test_a_refusal_carries_the_key_of_its_reason(
    make_app: AppMaker, tmp_path: Path, label: str, make: Maker, key: str, params: dict[str, str]
) -> None:
    """The UI words "the bundle is refused: <why>" in its language from the reason's key
    (`reason_key`, `reason_<param>`); the English message is unchanged (issue 41)."""
    app, _ = await make_app()
    refused = await err(app, "mcp_catalog.bundle_preview", {"path": str(make(tmp_path / f"{label}.mcpb"))})
    assert refused["key"] == "bundle.refused" and refused["params"]["reason_key"] == key, refused
    for name, value in params.items():
        assert refused["params"][f"reason_{name}"] == value, refused
    assert refused["message"] == "the bundle is refused: " + refused["params"]["reason"]


async def test_a_command_refusal_is_keyed(make_app: AppMaker, tmp_path: Path) -> None:
    app, _ = await make_app()
    bundle = _shell_command(tmp_path / "cmd.mcpb")
    refused = await err(app, "mcp_catalog.bundle_preview", {"path": str(bundle)})
    assert refused["key"] == "bundle.archive.node_command" and refused["params"] == {"command": "bash"}

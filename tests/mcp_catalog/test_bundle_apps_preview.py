"""A bundle's preview lists its tools that have MCP Apps, with each App's declared domains and
permissions (issue 37 item 3, decision 550): the server is unpacked into a private folder,
started once inside the sandbox and stopped; nothing stays behind. Over the real API and the
real CLI (`cashcode mcp install FILE.mcpb`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox.probe import landlock_abi
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok
from tests.cli.conftest import base_env, cashcode
from tests.mcp_catalog.app_bundle import DECLARED, app_bundle

pytestmark = pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")


async def test_the_bundle_preview_lists_the_app_tools_with_domains_and_permissions(
    make_app: AppMaker, tmp_path: Path, paths: AppPaths
) -> None:
    app, _ = await make_app()
    bundle = app_bundle(tmp_path / "app-kit.mcpb", permissions="camera,geolocation")
    preview = await ok(app, "mcp_catalog.bundle_preview", {"path": str(bundle)})
    probe = preview["apps"]
    assert probe["state"] == "listed", probe
    assert probe["tool_count"] == 3
    [show] = probe["apps"]
    assert show["tool"] == "show_probe" and show["uri"] == "ui://probe/page.html"
    assert show["connect_domains"] == [DECLARED]
    assert show["permissions"] == ["camera", "geolocation"]
    assert show["visibility"] == ["model", "app"]
    # nothing installed, nothing left of the probe's folder, no entry made
    assert not (paths.cache_dir / "mcp_servers" / "app-kit").exists()
    assert list((paths.cache_dir / "mcp_probe").iterdir()) == []
    names = [s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]]
    assert "app-kit" not in names


def test_the_cli_bundle_preview_prints_the_apps(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    bundle = app_bundle(tmp_path / "app-kit.mcpb")
    # standard input is not a terminal: the preview is printed, then it asks for --yes
    shown = cashcode("mcp", "install", str(bundle), env=env, cwd=tmp_path, timeout=120)
    assert shown.returncode == 1 and "--yes" in shown.stderr
    assert "Apps (1):" in shown.stdout, shown.stdout
    assert "show_probe: ui://probe/page.html" in shown.stdout
    assert f"domains: {DECLARED}" in shown.stdout
    assert "permissions: camera" in shown.stdout
    assert not (tmp_path / "cache" / "mcp_servers" / "app-kit").exists()

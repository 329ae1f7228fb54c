"""Issue 37 item 5: a Registry package of type `mcpb` installs through the bundle installer,
its download checked against the entry's `fileSha256` — the bundle served on loopback by the
fake registry; a wrong hash is refused and leaves nothing."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from app.settings.paths import AppPaths
from app.testing.fake_mcp_registry import FakeMcpRegistry, server_json
from tests.api.conftest import AppMaker, err, ok
from tests.mcp_catalog.bundle_kit import GREETER, NODE_SERVER

MANIFEST = {
    "manifest_version": "0.3",
    "name": "greet-kit",
    "display_name": "Greet Kit",
    "version": "2.0.0",
    "description": "Greets people",
    "author": {"name": "Greeter"},
    "server": {
        "type": "node",
        "entry_point": "server/index.js",
        "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js", "Howdy"]},
    },
    "tools": [{"name": "greet", "description": "Greet someone"}],
}


def bundle() -> bytes:
    """A node bundle (its helper package bundled in node_modules), zipped as `mcpb pack` does."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps(MANIFEST))
        z.writestr("server/index.js", NODE_SERVER)
        z.writestr("node_modules/greeter/index.js", GREETER)
        z.writestr("node_modules/greeter/package.json", json.dumps({"name": "greeter", "main": "index.js"}))
    return out.getvalue()


def entry(name: str, url: str, sha256: str) -> dict[str, Any]:
    package = {
        "registryType": "mcpb",
        "identifier": url,
        "version": "2.0.0",
        "fileSha256": sha256,
        "transport": {"type": "stdio"},
    }
    return server_json(name, "Greets people, as an MCP bundle", "2.0.0", packages=[package])


def leftovers(paths: AppPaths) -> list[str]:
    found = []
    for folder in (paths.cache_dir / "mcp_servers", paths.cache_dir / "mcp_bundle_uploads"):
        found += [str(p) for p in folder.iterdir()] if folder.is_dir() else []
    return found


async def test_an_mcpb_package_installs_through_the_bundle_path_and_a_wrong_hash_is_refused(
    make_app: AppMaker, paths: AppPaths
) -> None:
    data = bundle()
    sha = hashlib.sha256(data).hexdigest()
    with FakeMcpRegistry() as registry:
        registry.files["greet-kit.mcpb"] = data
        url = f"{registry.base_url}/files/greet-kit.mcpb"
        good, bad = "io.example.bundles/greet-kit", "io.example.bundles/greet-kit-tampered"
        registry.entries += [entry(good, url, sha), entry(bad, url, "0" * 64)]
        app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        listed = {s["name"]: s for s in (await ok(app, "mcp_catalog.registry.search"))["servers"]}
        option = listed[good]["options"][0]
        assert option["registry"] == "mcpb" and option["problem"] == "", option
        assert listed[good]["install_option"] == 0

        # a wrong hash: the plan and the install are refused, and nothing is left behind
        refused = await err(app, "mcp_catalog.registry.plan", {"name": bad})
        assert refused["code"] == "invalid"
        assert f"has SHA-256 {sha}" in refused["message"] and "0" * 64 in refused["message"]
        forced = await err(app, "mcp_catalog.registry.install", {"name": bad, "confirm": "f" * 64})
        assert forced["code"] == "invalid" and f"has SHA-256 {sha}" in forced["message"]
        names = {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}
        assert "greet-kit" not in names and leftovers(paths) == []

        # the right hash: planned from the downloaded bundle, installed by the bundle installer
        plan = await ok(app, "mcp_catalog.registry.plan", {"name": good})
        assert plan["id"] == "greet-kit" and plan["registry"] == "mcpb" and plan["file_sha256"] == sha
        assert plan["commands"][0] == f"download {url} and check its SHA-256 is {sha}"
        assert plan["argv"][-1] == "Howdy" and plan["argv"][-2].endswith("server/index.js")
        done = await ok(app, "mcp_catalog.registry.install", {"name": good, "confirm": plan["confirm"]})
        assert done["server"] == "greet-kit" and done["argv"] == plan["argv"]
        view = await ok(app, "mcp.servers.get", {"name": "greet-kit"})
        assert not view["needs_confirmation"]
        called = await ok(
            app, "mcp.tools.call", {"name": "greet-kit", "tool": "greet", "arguments": {"name": "Ada"}}
        )
        assert called["ok"] and "Howdy, Ada." in called["text"], called
        assert Path(plan["folder"]).is_dir()
        assert not any((paths.cache_dir / "mcp_bundle_uploads").iterdir())  # the download is gone
        await app.aclose()

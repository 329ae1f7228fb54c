"""The MCP Registry in the catalog, against a local registry (app/testing/fake_mcp_registry.py)
answering in the published format: browse, search and page (API and CLI), the disk cache, the
offline fallback, malformed entries, installing a PyPI entry through uv and adding a remote
entry that points at the built-in Streamable HTTP test server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.mcp_catalog.registry import MAX_BYTES, parse_page
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.testing.fake_mcp_registry import FakeMcpRegistry, npm_package, pypi_package, server_json
from tests.api.conftest import AppMaker, err, ok
from tests.cli.conftest import base_env, cashcode
from tests.mcp.helpers import http_server
from tests.mcp_catalog.test_install import DOWNLOADS, INSTALL_TIMEOUT_S

REPO = Path(__file__).resolve().parents[2]
HTTP_TEST_SERVER = REPO / "resources" / "mcp_servers" / "test_http_mcp" / "server.py"

TIME = server_json(
    "io.example.tools/mcp-time",
    "Time and time zone conversion",
    "2026.10.19",
    title="Time (registry)",
    packages=[
        pypi_package(
            "mcp-server-time",
            "2026.10.19",
            packageArguments=[
                {
                    "type": "named",
                    "name": "--local-timezone",
                    "valueHint": "timezone",
                    "description": "IANA time zone",
                },
            ],
            environmentVariables=[
                {"name": "TIME_API_TOKEN", "description": "a token", "isSecret": True},
                {"name": "TIME_MODE", "description": "mode", "default": "plain"},
            ],
        )
    ],
)
MEMORY = server_json(
    "io.example.tools/memory",
    "Knowledge graph memory",
    "2026.8.31",
    packages=[npm_package("@modelcontextprotocol/server-memory", "2026.8.31")],
)
DOCKER = server_json(
    "io.example.tools/in-a-box",
    "Only as a container image",
    packages=[
        {
            "registryType": "oci",
            "identifier": "example/box",
            "version": "1.0.0",
            "transport": {"type": "stdio"},
        }
    ],
)
MALFORMED = [
    {"server": {"name": "no-slash-here", "description": "bad name", "version": "1"}},
    {"server": {"name": "io.example.tools/bad-package", "packages": [{"identifier": "x"}]}},
    "not an object",
]


def remote(url: str) -> dict[str, Any]:
    return server_json(
        "io.example.remote/hello-http",
        "Says hello over Streamable HTTP",
        "1.0.0",
        remotes=[
            {
                "type": "streamable-http",
                "url": url,
                "headers": [
                    {"name": "X-Api-Key", "description": "the key", "isRequired": True, "isSecret": True}
                ],
            }
        ],
    )


def fillers(n: int) -> list[dict[str, Any]]:
    return [
        server_json(
            f"io.example.more/server-{i:02d}", f"filler {i}", packages=[pypi_package(f"pkg-{i}", "1.0")]
        )
        for i in range(n)
    ]


async def use_registry(app: Any, url: str) -> None:
    view = await ok(app, "mcp_catalog.registry.save_settings", {"registry_url": url + "/"})
    assert view["registry_url"] == url and not view["from_env"]


async def test_browse_search_page_cache_and_malformed_entries(make_app: AppMaker) -> None:
    with FakeMcpRegistry([TIME, MEMORY, DOCKER, *MALFORMED, *fillers(30)]) as registry:
        app, _ = await make_app()
        await use_registry(app, registry.base_url)
        first = await ok(app, "mcp_catalog.registry.search")
        assert first["state"] == "live" and first["notice"] == "" and first["base_url"] == registry.base_url
        names = [s["name"] for s in first["servers"]]
        assert names[:3] == [
            "io.example.tools/mcp-time",
            "io.example.tools/memory",
            "io.example.tools/in-a-box",
        ]
        assert len(first["skipped"]) == 3 and "entry 4 (no-slash-here)" in first["skipped"][0]
        assert all(s["source"] == "registry" for s in first["servers"])
        assert first["next_cursor"]
        assert (
            registry.requests[-1].startswith("/v0.1/servers?") and "version=latest" in registry.requests[-1]
        )

        second = await ok(app, "mcp_catalog.registry.search", {"cursor": first["next_cursor"]})
        assert second["next_cursor"] == "" and second["servers"]
        assert not {s["name"] for s in second["servers"]} & set(names)
        assert len(names) + len(second["servers"]) + 3 == len(registry.entries)

        time = next(s for s in first["servers"] if s["name"] == "io.example.tools/mcp-time")
        assert time["id"] == "mcp-time" and time["install_option"] == 0 and not time["installed"]
        inputs = {i["key"]: i for i in time["options"][0]["inputs"]}
        assert inputs["TIME_API_TOKEN"]["secret"] and inputs["TIME_API_TOKEN"]["target"] == "env"
        assert inputs["timezone"]["target"] == "arg" and inputs["TIME_MODE"]["default"] == "plain"
        box = next(s for s in first["servers"] if s["id"] == "in-a-box")
        assert (
            box["install_option"] == -1 and "oci packages are not supported" in box["options"][0]["problem"]
        )

        asked = len(registry.requests)
        found = await ok(app, "mcp_catalog.registry.search", {"search": "TIME"})
        assert [s["name"] for s in found["servers"]] == ["io.example.tools/mcp-time"]
        assert "search=TIME" in registry.requests[-1]
        again = await ok(app, "mcp_catalog.registry.search", {"search": "time"})  # fresh on disk
        assert again["state"] == "cached" and again["notice"] == "" and len(registry.requests) == asked + 1
        assert again["servers"] == found["servers"]
        refreshed = await ok(app, "mcp_catalog.registry.search", {"search": "time", "refresh": True})
        assert refreshed["state"] == "live" and len(registry.requests) == asked + 2


async def test_offline_says_so_and_shows_the_last_answer_or_the_curated_catalog_only(
    make_app: AppMaker, paths: AppPaths
) -> None:
    registry = FakeMcpRegistry([TIME]).start()
    url = registry.base_url
    app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": url})
    view = await ok(app, "mcp_catalog.registry.settings")
    assert view == {
        "registry_url": url,
        "saved_url": "",
        "from_env": True,
        "env_var": "CASHCODE_MCP_REGISTRY_URL",
    }
    live = await ok(app, "mcp_catalog.registry.search", {"search": "time"})
    assert live["state"] == "live" and list((paths.cache_dir / "mcp_registry").glob("*.json"))
    registry.stop()

    cached = await ok(app, "mcp_catalog.registry.search", {"search": "time", "refresh": True})
    assert cached["state"] == "cached" and "cannot be reached" in cached["notice"]
    assert [s["name"] for s in cached["servers"]] == ["io.example.tools/mcp-time"]
    offline = await ok(app, "mcp_catalog.registry.search", {"search": "never asked"})
    assert offline["state"] == "offline" and offline["servers"] == []
    assert "Showing the curated catalog only" in offline["notice"]
    curated = await ok(app, "mcp_catalog.list")
    assert {"time", "memory"} <= {s["id"] for s in curated["servers"]}


async def test_no_registry_is_set_by_default_and_a_bad_address_is_refused(make_app: AppMaker) -> None:
    app, _ = await make_app()
    unset = await ok(app, "mcp_catalog.registry.search")
    assert unset["state"] == "unset" and "CASHCODE_MCP_REGISTRY_URL" in unset["notice"]
    bad = await err(app, "mcp_catalog.registry.save_settings", {"registry_url": "ftp://x.example"})
    assert bad["code"] == "invalid" and "http(s)" in bad["message"]
    assert (await ok(app, "mcp_catalog.registry.settings"))["saved_url"] == ""
    install = {"name": "io.example.tools/mcp-time", "confirm": "0" * 64}
    refused = await err(app, "mcp_catalog.registry.install", install)
    assert "No MCP Registry is set" in refused["message"]


@pytest.mark.parametrize(
    "body, why",
    [
        (b"<html>not json</html>", "not JSON"),
        (b'{"items": []}', "not a server list"),
        (b'{"servers": [' + b'"x",' * (MAX_BYTES // 4) + b'"x"]}', "larger than"),
    ],
)
async def test_a_bad_answer_is_offline_with_the_reason(make_app: AppMaker, body: bytes, why: str) -> None:
    with FakeMcpRegistry() as registry:
        registry.raw_body = body
        app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        got = await ok(app, "mcp_catalog.registry.search")
        assert got["state"] == "offline" and why in got["notice"] and got["servers"] == []


async def test_a_redirect_to_another_local_address_is_refused(make_app: AppMaker) -> None:
    """The configured registry may be on this machine; where it redirects may not (SSRF)."""
    with FakeMcpRegistry([TIME]) as elsewhere, FakeMcpRegistry() as registry:
        registry.redirect = f"{elsewhere.base_url}/v0.1/servers"
        app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        got = await ok(app, "mcp_catalog.registry.search")
        assert got["state"] == "offline" and "refused" in got["notice"] and got["servers"] == []
        assert elsewhere.requests == []


def test_each_malformed_entry_is_skipped_alone() -> None:
    page = parse_page({"servers": [TIME, *MALFORMED, server_json("io.x/gone", "d", status="deleted")]})
    assert [e.server.name for e in page.entries] == ["io.example.tools/mcp-time"]
    assert [s.split(" (")[0] for s in page.skipped] == ["entry 2", "entry 3", "entry 4"]
    assert "packages.0.registryType" in page.skipped[1]


async def test_a_pypi_entry_installs_through_uv_with_its_secret_in_the_keyring(
    make_app: AppMaker, paths: AppPaths, secrets: SecretStore
) -> None:
    with FakeMcpRegistry([TIME]) as registry:
        app, _ = await make_app(env={**DOWNLOADS, "CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        request = {
            "name": "io.example.tools/mcp-time",
            "inputs": {"timezone": ["Asia/Tokyo"], "TIME_API_TOKEN": ["tok-123456"]},
        }
        missing = await err(app, "mcp_catalog.registry.plan", {**request, "inputs": {"nope": ["1"]}})
        assert "has no input 'nope'" in missing["message"]
        plan = await ok(app, "mcp_catalog.registry.plan", request)
        assert plan["env"] == {"TIME_API_TOKEN": "********", "TIME_MODE": "plain"}
        assert plan["argv"][1:] == ["--local-timezone", "Asia/Tokyo"] and plan["loader_env"] == []
        folder = paths.cache_dir / "mcp_servers" / "mcp-time"
        assert plan["id"] == "mcp-time" and plan["folder"] == str(folder)
        assert plan["commands"][-1].endswith(f"{folder}/venv/bin/python mcp-server-time==2026.10.19")
        assert not any("tok-123456" in c for c in plan["commands"])
        done = await ok(app, "mcp_catalog.registry.install", {**request, "confirm": plan["confirm"]})
        assert done["argv"] == plan["argv"] == [
            str(folder / "venv" / "bin" / "mcp-server-time"),
            "--local-timezone",
            "Asia/Tokyo",
        ]
        view = await ok(app, "mcp.servers.get", {"name": "mcp-time"})
        assert view["source"] == "user" and not view["needs_confirmation"]
        assert view["secret_env"] == ["TIME_API_TOKEN"] and view["env"]["TIME_API_TOKEN"] == "********"
        assert view["env"]["TIME_MODE"] == "plain"
        assert secrets.get("mcp:mcp-time:env:TIME_API_TOKEN") == "tok-123456"
        called = await ok(
            app,
            "mcp.tools.call",
            {"name": "mcp-time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
        )
        assert called["ok"] and json.loads(called["text"])["timezone"] == "UTC"
        listed = await ok(app, "mcp_catalog.registry.search", {"search": "time"})
        assert listed["servers"][0]["installed"]
        removed = await ok(app, "mcp_catalog.uninstall", {"name": "mcp-time"})
        assert removed == {"server": "mcp-time", "removed_entry": True, "removed_files": True}
        assert not folder.exists()


async def test_an_npm_entry_installs_with_ignore_scripts_and_runs_its_only_program(
    make_app: AppMaker, paths: AppPaths
) -> None:
    """The registry names no program: the package's only `bin` runs (npx's rule), with Node."""
    with FakeMcpRegistry([MEMORY]) as registry:
        app, _ = await make_app(env={**DOWNLOADS, "CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        name = "io.example.tools/memory"
        plan = await ok(app, "mcp_catalog.registry.plan", {"name": name})
        # the curated catalog's `memory` is never taken: the id keeps its namespace (issue 33 item 2)
        assert plan["id"] == "tools-memory"
        done = await ok(app, "mcp_catalog.registry.install", {"name": name, "confirm": plan["confirm"]})
        folder = paths.cache_dir / "mcp_servers" / "tools-memory"
        assert "--ignore-scripts" in done["commands"][0].split()
        assert done["commands"][0].endswith(
            f"--prefix {folder} @modelcontextprotocol/server-memory@2026.8.31"
        )
        assert done["argv"][1].startswith(
            str(folder / "node_modules" / "@modelcontextprotocol" / "server-memory")
        )
        call = {"name": "tools-memory", "tool": "read_graph", "arguments": {}}
        called = await ok(app, "mcp.tools.call", call)
        assert called["ok"] and "entities" in called["text"]
        await ok(app, "mcp_catalog.uninstall", {"name": "tools-memory"})
        assert not folder.exists()


async def test_a_remote_entry_becomes_a_url_server_whose_tool_runs(
    make_app: AppMaker, secrets: SecretStore
) -> None:
    with http_server(HTTP_TEST_SERVER, "--port") as mcp_url, FakeMcpRegistry([remote(mcp_url)]) as registry:
        app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        found = (await ok(app, "mcp_catalog.registry.search", {"search": "hello"}))["servers"][0]
        assert found["options"][0]["kind"] == "remote" and found["options"][0]["url"] == mcp_url
        name = "io.example.remote/hello-http"
        needs = await err(app, "mcp_catalog.registry.plan", {"name": name})
        assert "'X-Api-Key' is required" in needs["message"]
        plan = await ok(app, "mcp_catalog.registry.plan", {"name": name, "inputs": {"X-Api-Key": ["k-1"]}})
        assert plan["commands"] == [f"connect to {mcp_url} (streamable-http)"]
        assert plan["headers"] == {"X-Api-Key": "********"} and plan["address"] == "loopback"
        install = {"name": name, "inputs": {"X-Api-Key": ["k-1"]}, "confirm": plan["confirm"]}
        done = await ok(app, "mcp_catalog.registry.install", install)
        assert done["server"] == "hello-http"
        view = await ok(app, "mcp.servers.get", {"name": "hello-http"})
        assert view["transport"] == "http" and view["url"] == mcp_url and view["source"] == "user"
        assert view["headers"] == {"X-Api-Key": "********"}
        assert secrets.get("mcp:hello-http:header:X-Api-Key") == "k-1"
        called = await ok(app, "mcp.tools.call", {"name": "hello-http", "tool": "say_hello", "arguments": {}})
        assert called["ok"] and "Hello, Cash" in called["text"]
        again = await err(app, "mcp_catalog.registry.install", {**install, "inputs": {"X-Api-Key": ["k"]}})
        assert again["code"] == "conflict"


def test_the_cli_lists_registry_entries_after_the_curated_ones_and_installs_one(tmp_path: Path) -> None:
    with FakeMcpRegistry([TIME, MEMORY, *MALFORMED]) as registry:
        env = {**base_env(tmp_path), **DOWNLOADS, "CASHCODE_MCP_REGISTRY_URL": registry.base_url}
        listed = cashcode("mcp", "catalog", "--search", "time", "--json", env=env, cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        data = json.loads(listed.stdout)
        assert [(s["source"], s["id"]) for s in data["servers"]] == [
            ("catalog", "time"),
            ("registry", "mcp-time"),
        ]
        assert data["registry"]["state"] == "live"
        text = cashcode("mcp", "catalog", env=env, cwd=tmp_path)
        assert text.returncode == 0, text.stderr
        curated_at = text.stdout.index("mcp-server-time==")
        registry_at = text.stdout.index(f"From the MCP Registry ({registry.base_url}):")
        assert curated_at < registry_at and "io.example.tools/memory" in text.stdout[registry_at:]
        assert "--input TIME_API_TOKEN=…  optional, secret (keychain)" in text.stdout
        assert "skipped a malformed registry entry: entry 3 (no-slash-here)" in text.stderr

        name = "io.example.tools/mcp-time"
        refused = cashcode("mcp", "install", name, env=env, cwd=tmp_path)
        assert refused.returncode == 1 and "--yes" in refused.stderr and "$ " in refused.stdout
        done = cashcode(
            "mcp",
            "install",
            name,
            "--input",
            "timezone=UTC",
            "--yes",
            env=env,
            cwd=tmp_path,
            timeout=INSTALL_TIMEOUT_S,
        )
        assert done.returncode == 0, done.stderr
        assert "Installed mcp-time:" in done.stdout
        call = ["mcp", "call", "mcp-time", "convert_time", "--args"]
        args = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        called = cashcode(*call, json.dumps(args), env=env, cwd=tmp_path, timeout=120)
        assert called.returncode == 0 and "21:00" in called.stdout, called.stderr
        gone = cashcode("mcp", "uninstall", "mcp-time", env=env, cwd=tmp_path)
        assert gone.returncode == 0 and "entry and its files removed" in gone.stdout

    offline = cashcode("mcp", "catalog", "--search", "nothing cached", env=env, cwd=tmp_path)
    assert offline.returncode == 0 and "MCP Registry offline:" in offline.stdout
    assert "Showing the curated catalog only" in offline.stdout


NEEDS_TOKEN = server_json(
    "io.example.tools/needs-token",
    "Needs a token",
    packages=[
        pypi_package(
            "needs-token",
            "1.0",
            environmentVariables=[
                {"name": "NEEDS_TOKEN_KEY", "description": "the token", "isRequired": True},
            ],
        )
    ],
)


async def test_a_missing_required_input_is_named_for_the_form_and_the_cli_adds_its_advice(
    make_app: AppMaker, tmp_path: Path
) -> None:
    # Issue 40 item 18: the Market's form showed the CLI's "add --input KEY=VALUE".
    with FakeMcpRegistry([NEEDS_TOKEN]) as registry:
        app, _ = await make_app()
        await use_registry(app, registry.base_url)
        await ok(app, "mcp_catalog.registry.search")
        name = "io.example.tools/needs-token"
        planned = await err(app, "mcp_catalog.registry.plan", {"name": name})
        assert "'NEEDS_TOKEN_KEY' is required" in planned["message"] and "--input" not in planned["message"]
        assert planned["details"]["missing_input"] == "NEEDS_TOKEN_KEY"
        env = {**base_env(tmp_path), "CASHCODE_MCP_REGISTRY_URL": registry.base_url}
        refused = cashcode("mcp", "install", name, "--yes", env=env, cwd=tmp_path)
        assert refused.returncode == 1
        assert "is required (the token): add --input NEEDS_TOKEN_KEY=VALUE" in refused.stderr

"""`cashcode mcp …` in real subprocesses (exact syntax from the issue), and `ask` seeing MCP
servers through tool_search/mcp_prepare."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import base_env, cashcode
from tests.mcp.test_real_servers import time_server  # noqa: F401  a fixture: installs mcp-server-time

ROUGH = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "rough_server.py"


# Eleven CLI processes, three of them starting MCP servers: more than the default per-test bound
# on a busy 2-core machine.
@pytest.mark.timeout(360)
def test_list_add_call_tools_resources_prompts_remove(home: Path) -> None:
    env = base_env(home)
    listed = cashcode("mcp", "list", "--json", env=env, cwd=home)
    assert listed.returncode == 0, listed.stderr
    assert {s["name"] for s in json.loads(listed.stdout)} >= {
        "test_stdio_mcp",
        "test_sse_mcp",
        "test_http_mcp",
    }

    called = cashcode("mcp", "call", "test_stdio_mcp", "say_hello", env=env, cwd=home, timeout=120)
    assert called.returncode == 0 and called.stdout.strip() == "Hello, Cash", called.stderr

    added = cashcode(
        "mcp",
        "add",
        "rough",
        "--command",
        sys.executable,
        str(ROUGH),
        "--env",
        "ROUGH_TOKEN=tok-12345",
        env=env,
        cwd=home,
    )
    assert added.returncode == 0, added.stderr
    assert "tok-12345" not in (home / "data" / "mcp" / "servers.json").read_text()
    failing = cashcode("mcp", "call", "rough", "fail", env=env, cwd=home, timeout=120)
    assert failing.returncode == 1 and "fail" in failing.stdout
    bad_args = cashcode("mcp", "call", "rough", "fail", "--args", "[1", env=env, cwd=home)
    assert bad_args.returncode == 1 and "not valid JSON" in bad_args.stderr

    tools = cashcode("mcp", "tools", "rough", "--json", env=env, cwd=home, timeout=120)
    assert tools.returncode == 0 and "echo_token" in {t["name"] for t in json.loads(tools.stdout)}
    resources = cashcode("mcp", "resources", "test_http_mcp", env=env, cwd=home, timeout=120)
    assert resources.returncode == 0 and "cash://readme" in resources.stdout, resources.stderr
    prompts = cashcode("mcp", "prompts", "test_sse_mcp", env=env, cwd=home, timeout=120)
    assert prompts.returncode == 0 and "greet(person)" in prompts.stdout, prompts.stderr

    url = cashcode(
        "mcp",
        "add",
        "remote",
        "--url",
        "http://127.0.0.1:9/sse",
        "--transport",
        "sse",
        "--header",
        "Authorization=Bearer hdr-secret-999",
        env=env,
        cwd=home,
    )
    assert url.returncode == 0, url.stderr
    again = cashcode("mcp", "list", "--json", env=env, cwd=home)
    remote = next(s for s in json.loads(again.stdout) if s["name"] == "remote")
    assert remote["headers"] == {"Authorization": "********"} and "hdr-secret-999" not in again.stdout

    assert cashcode("mcp", "remove", "remote", env=env, cwd=home).returncode == 0
    gone = cashcode("mcp", "remove", "remote", env=env, cwd=home)
    assert gone.returncode == 1 and "no MCP server" in gone.stderr
    builtin = cashcode("mcp", "remove", "test_stdio_mcp", env=env, cwd=home)
    assert builtin.returncode == 1 and "built-in" in builtin.stderr


def test_import_needs_a_confirmation_for_stdio(home: Path) -> None:
    env = base_env(home)
    snippet = home / "claude.json"
    snippet.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "rough": {"command": sys.executable, "args": [str(ROUGH)]},
                    "oops": {"type": "carrier-pigeon", "url": "http://127.0.0.1:9"},
                }
            }
        )
    )
    imported = cashcode("mcp", "import", str(snippet), env=env, cwd=home)
    assert imported.returncode == 0 and "cashcode mcp confirm rough" in imported.stdout
    assert "Skipped oops: unknown transport" in imported.stderr
    refused = cashcode("mcp", "call", "rough", "fail", env=env, cwd=home)
    assert refused.returncode == 1 and "confirm" in refused.stderr
    assert cashcode("mcp", "confirm", "rough", env=env, cwd=home).returncode == 0
    assert cashcode("mcp", "call", "rough", "echo_token", env=env, cwd=home, timeout=120).returncode == 0
    broken = home / "broken.json"
    broken.write_text("{nope")
    bad = cashcode("mcp", "import", str(broken), env=env, cwd=home)
    assert bad.returncode == 1 and "not valid JSON" in bad.stderr


def test_ask_offers_tool_search_and_mcp_prepare(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "hello cash"}}]},
        {"text": "found it"},
    )
    done = cashcode("ask", "find a greeting tool", env=env, cwd=home / "ws", timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = fake_llm.model_requests()[-2:]
    names = [t.get("name") or t.get("function", {}).get("name") for t in first.body["tools"]]
    assert "tool_search" in names and "mcp_prepare" in names
    outputs = [str(i.get("output", "")) for i in second.body.get("input", []) if isinstance(i, dict)]
    outputs += [str(m.get("content")) for m in second.body.get("messages", []) if m.get("role") == "tool"]
    assert any("test_stdio_mcp" in o for o in outputs)


def test_tools_of_a_program_that_is_not_an_mcp_server_is_one_line(home: Path) -> None:
    """Issue 25 item 8: no traceback, one line naming what the program printed."""
    env = base_env(home)
    program = "print('hello from a plain script'); import time; time.sleep(2)"
    added = cashcode("mcp", "add", "plain", "--command", sys.executable, "-c", program, env=env, cwd=home)
    assert added.returncode == 0, added.stderr
    assert cashcode("mcp", "confirm", "plain", env=env, cwd=home).returncode == 0
    tools = cashcode("mcp", "tools", "plain", env=env, cwd=home, timeout=120)
    assert tools.returncode == 1
    lines = [line for line in tools.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not an MCP server" in lines[0] and "hello from a plain script" in lines[0]
    assert "Traceback" not in tools.stderr and tools.stdout == ""


def test_a_stdio_server_that_fails_to_start_is_reported_with_its_error_line_and_log(home: Path) -> None:
    """Issue 37 item 5: the line of stderr that says why (not a cut fragment such as "ule>"), and
    where the whole output is."""
    env = base_env(home)
    program = (
        "import sys\n"
        "for i in range(60):\n"
        "    print(f'    at Module._load (node:internal/modules/cjs/loader:{i})', file=sys.stderr)\n"
        "import nonexistent_module_x\n"
    )
    added = cashcode("mcp", "add", "broken", "--command", sys.executable, "-c", program, env=env, cwd=home)
    assert added.returncode == 0, added.stderr
    assert cashcode("mcp", "confirm", "broken", env=env, cwd=home).returncode == 0
    tools = cashcode("mcp", "tools", "broken", env=env, cwd=home, timeout=120)
    assert tools.returncode == 1
    lines = [line for line in tools.stderr.splitlines() if line.strip()]
    log = home / "logs" / "mcp" / "broken.stderr.log"
    assert len(lines) == 1, tools.stderr
    assert "ModuleNotFoundError: No module named 'nonexistent_module_x'" in lines[0], lines[0]
    assert str(log) in lines[0] and "nonexistent_module_x" in log.read_text(encoding="utf-8")


def _tool_outputs(request: Any) -> list[str]:
    outputs = [str(i.get("output", "")) for i in request.body.get("input", []) if isinstance(i, dict)]
    outputs += [str(m.get("content")) for m in request.body.get("messages", []) if m.get("role") == "tool"]
    return outputs


@pytest.mark.timeout(240)
def test_the_walkthrough_passes_through_ask(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    """Issue 22 item 2: `ask` stores its chat only with the turn; mcp_prepare used to fail there
    (a foreign key), so the next MCP call was an unknown tool."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"approval_mode": "autonomous"}))
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio Hello Cash"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": "mcp_test_stdio_mcp_say_hello", "arguments": {}}]},
        {"text": "The server says: Hello, Cash"},
    )
    done = cashcode("ask", "call the stdio test server", env=env, cwd=home / "ws", timeout=180)
    assert done.returncode == 0, done.stderr
    third, fourth = fake_llm.model_requests()[-2:]
    assert "Activated tools" in _tool_outputs(third)[-1], _tool_outputs(third)
    assert _tool_outputs(fourth)[-1] == "Hello, Cash"


@pytest.mark.timeout(240)
def test_a_server_added_with_a_description_is_found_by_what_it_does(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    """Issue 22 item 3: before its first connect, a server is found by its description."""
    added = cashcode(
        "mcp",
        "add",
        "gitlike",
        "--description",
        "Shows the commit log and diffs of a git repository",
        "--command",
        sys.executable,
        str(ROUGH),
        env=env,
        cwd=home,
    )
    assert added.returncode == 0, added.stderr
    listed = json.loads(cashcode("mcp", "list", "--json", env=env, cwd=home).stdout)
    assert next(s for s in listed if s["name"] == "gitlike")["description"].startswith("Shows the commit log")
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "show the commit log"}}]},
        {"text": "found it"},
    )
    done = cashcode("ask", "what changed lately?", env=env, cwd=home / "ws", timeout=120)
    assert done.returncode == 0, done.stderr
    found = _tool_outputs(fake_llm.model_requests()[-1])[-1]
    assert "gitlike" in found and "No MCP tool matches" not in found


@pytest.mark.timeout(1200)  # the first run installs mcp-server-time into the test cache
def test_the_walkthrough_passes_through_ask_for_mcp_server_time(
    env: dict[str, str],
    home: Path,
    fake_llm: Any,
    time_server: Path,  # noqa: F811  the fixture imported above
) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"approval_mode": "autonomous"}))
    added = cashcode(
        "mcp",
        "add",
        "time",
        "--env",
        f"PYTHONPATH={time_server}",
        "--description",
        "Current time and time zone conversion",
        "--command",
        sys.executable,
        "-m",
        "mcp_server_time",
        env=env,
        cwd=home,
    )
    assert added.returncode == 0, added.stderr
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "current time in a time zone"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "time"}}]},
        {"tool_calls": [{"name": "mcp_time_get_current_time", "arguments": {"timezone": "UTC"}}]},
        {"text": "It is now …"},
    )
    done = cashcode("ask", "what time is it in UTC?", env=env, cwd=home / "ws", timeout=180)
    assert done.returncode == 0, done.stderr
    second, third, fourth = fake_llm.model_requests()[-3:]
    assert "time" in _tool_outputs(second)[-1]
    assert "mcp_time_get_current_time" in _tool_outputs(third)[-1]
    assert "UTC" in _tool_outputs(fourth)[-1] and "Error" not in _tool_outputs(fourth)[-1]


def test_import_shows_values_masks_only_secrets_and_calls_out_loader_variables(home: Path) -> None:
    """Issue 33 item 4: `with env PYTHONUSERBASE=********` confirmed blind. Only values secret
    by name (or marked in `secret_env`) are masked; program-changing variables are named."""
    env = base_env(home)
    snippet = home / "servers.json"
    snippet.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "py": {
                        "command": sys.executable,
                        "args": [str(ROUGH)],
                        "env": {
                            "PYTHONUSERBASE": "/tmp/evil-base",
                            "npm_config_registry": "http://203.0.113.9/",
                            "UV_INDEX_URL": "http://203.0.113.9/simple",
                            "REGION": "eu-west-1",
                            "GITHUB_TOKEN": "ghp-import-secret-1",
                            "DB_PW": "pw-import-secret-2",
                            "PLAIN_LOOKING": "marked-secret-3",
                        },
                        "secret_env": ["PLAIN_LOOKING"],
                    }
                }
            }
        )
    )
    imported = cashcode("mcp", "import", str(snippet), env=env, cwd=home)
    assert imported.returncode == 0, imported.stderr
    out = imported.stdout
    for shown in (
        "PYTHONUSERBASE=/tmp/evil-base",
        "npm_config_registry=http://203.0.113.9/",
        "UV_INDEX_URL=http://203.0.113.9/simple",
        "REGION=eu-west-1",
        "GITHUB_TOKEN=********",
        "DB_PW=********",
        "PLAIN_LOOKING=********",
    ):
        assert shown in out, out
    assert "PYTHONUSERBASE, UV_INDEX_URL, npm_config_registry change which code" in out
    assert not any(s in out for s in ("ghp-import-secret-1", "pw-import-secret-2", "marked-secret-3"))
    listed = cashcode("mcp", "list", env=env, cwd=home)
    assert "PYTHONUSERBASE=/tmp/evil-base" in listed.stdout and "GITHUB_TOKEN=********" in listed.stdout
    assert "ghp-import-secret-1" not in listed.stdout


def test_import_with_a_description_fills_it_in_for_servers_without_one(home: Path) -> None:
    """Issue 22 item 3: `mcp import --description` describes the servers that bring none."""
    env = base_env(home)
    snippet = home / "servers.json"
    snippet.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "plain": {"command": sys.executable, "args": [str(ROUGH)]},
                    "own": {"command": sys.executable, "args": [str(ROUGH)], "description": "Its own words"},
                }
            }
        )
    )
    imported = cashcode(
        "mcp", "import", str(snippet), "--description", "Reads the weather", env=env, cwd=home
    )
    assert imported.returncode == 0, imported.stderr
    listed = {s["name"]: s for s in json.loads(cashcode("mcp", "list", "--json", env=env, cwd=home).stdout)}
    assert listed["plain"]["description"] == "Reads the weather"
    assert listed["own"]["description"] == "Its own words"


@pytest.mark.timeout(240)
def test_the_walkthrough_passes_through_chat(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    """Issue 22 acceptance: tool_search → mcp_prepare → the server's tool in `cashcode chat`
    (piped: the conversation is the input lines; autonomous so nothing needs a person)."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"approval_mode": "autonomous"}))
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio Hello Cash"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": "mcp_test_stdio_mcp_say_hello", "arguments": {}}]},
        {"text": "The server says: Hello, Cash"},
    )
    done = cashcode("chat", env=env, cwd=home / "ws", stdin="call the stdio test server\n", timeout=180)
    assert done.returncode == 0, done.stderr
    assert "The server says: Hello, Cash" in done.stdout
    assert _tool_outputs(fake_llm.model_requests()[-1])[-1] == "Hello, Cash"


FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31"


@pytest.mark.timeout(1200)  # the first run installs the server into the test cache
def test_the_walkthrough_passes_through_ask_for_server_filesystem(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    """Issue 22 acceptance: the third-party filesystem server, added with `mcp add`, found,
    prepared and called from one `cashcode ask`."""
    import shutil
    import subprocess

    repo = Path(__file__).resolve().parents[2]
    target = repo / ".cache" / "test-deps" / "npm-fs"
    entry = target / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are needed for the real-server tests"
    if not entry.exists():
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target), FILESYSTEM],
            check=True,
            timeout=900,
            capture_output=True,
        )
    shared = home / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("The launch code is BLUE-7.\n")
    added = cashcode(
        "mcp", "add", "fs", "--description", "Reads and lists files in a shared folder",
        "--command", node, str(entry), str(shared), env=env, cwd=home,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert cashcode("mcp", "confirm", "fs", env=env, cwd=home).returncode == 0
    (home / "config" / "settings.json").write_text(json.dumps({"approval_mode": "autonomous"}))
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "read files in a shared folder"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "fs"}}]},
        {"tool_calls": [{"name": "mcp_fs_read_text_file", "arguments": {"path": str(shared / "notes.txt")}}]},
        {"text": "It says BLUE-7."},
    )
    done = cashcode("ask", "what is in the shared notes?", env=env, cwd=home / "ws", timeout=300)
    assert done.returncode == 0, done.stderr
    requests = fake_llm.model_requests()
    assert "fs" in _tool_outputs(requests[1])[-1]  # tool_search found it by its description
    assert "BLUE-7" in _tool_outputs(requests[-1])[-1]

"""`cashcode agents export NAME FILE` and `cashcode agents import FILE [--yes]` (issue 38 item 3)
in real subprocesses: export from one profile, import on a fresh one with the capability
preview, the agent working end to end against the scripted LLM, and version 2's update preview."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

from tests.cli.conftest import VALID_KEY, base_env, cashcode, env, fake_llm, home

__all__ = ["env", "fake_llm", "home"]

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "resources" / "mcp_servers" / "test_stdio_mcp" / "server.py"
SECRET = "s3cret-VALUE-never-exported"


def _profile(root: Path, fake_llm: Any) -> dict[str, str]:
    (root / "ws").mkdir(parents=True, exist_ok=True)
    e = base_env(root)
    e.update(OPENAI_BASE_URL=fake_llm.openai_base_url, OPENAI_API_KEY=VALID_KEY)
    return e


def _ok(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = cashcode(*args, env=env, cwd=cwd)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def _skill(data: Path, name: str, scripts: dict[str, str]) -> None:
    folder = data / "skills" / "user" / name
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Greets people.\n---\nRun a script.\n")
    for file, body in scripts.items():
        (folder / "scripts" / file).write_text(body)


def _exporter(root: Path, fake_llm: Any) -> dict[str, str]:
    """Profile A: agent `helper` with a Skill that has a script, an MCP server with a secret
    input, a knowledge base and a daily task."""
    e = _profile(root, fake_llm)
    _skill(root / "data", "greeter", {"hello.py": "print('HELLO-FROM-SCRIPT')\n"})
    ws = root / "ws"
    _ok("mcp", "add", "echo", "--env", f"API_TOKEN={SECRET}", "--env-plain", "MODE=fast",
        "--command", sys.executable, str(SERVER), env=e, cwd=ws)  # fmt: skip
    _ok("agents", "add", "helper", "--persona", "You are HELPER-PERSONA.", "--skills", "greeter",
        "--mcp", "echo", "--kb", "notes", "--approval-mode", "ask_writes", env=e, cwd=ws)  # fmt: skip
    _ok(
        "tasks",
        "add",
        "morning",
        "--prompt",
        "Say hi",
        "--daily",
        "09:00",
        "--agent",
        "helper",
        env=e,
        cwd=ws,
    )
    return e


def _state(root: Path) -> dict[str, str]:
    """Everything an install writes, as digests: Skill files, servers.json, the agent rows."""
    data = root / "data"
    out: dict[str, str] = {}
    for path in sorted((data / "skills").rglob("*")) if (data / "skills").exists() else []:
        if path.is_file():
            out[str(path.relative_to(data))] = hashlib.sha256(path.read_bytes()).hexdigest()
    servers = data / "mcp" / "servers.json"
    if servers.exists():
        out["servers.json"] = hashlib.sha256(servers.read_bytes()).hexdigest()
    with contextlib.closing(sqlite3.connect(data / "cashcode.sqlite3")) as db:
        for table in ("agents", "agent_packages", "tasks"):
            rows = db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            out[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return out


def test_export_then_import_on_a_fresh_profile_previews_installs_and_works(home: Path, fake_llm: Any) -> None:
    a = _exporter(home / "a", fake_llm)
    package = home / "helper.cashagent"
    out = _ok("agents", "export", "helper", str(package), env=a, cwd=home / "a" / "ws")
    assert "helper version 1" in out.stdout
    raw = package.read_bytes()
    assert SECRET.encode() not in raw
    with zipfile.ZipFile(package) as z:
        assert sorted(z.namelist()) == [
            "manifest.json",
            "skills/greeter/SKILL.md",
            "skills/greeter/scripts/hello.py",
        ]
        manifest = json.loads(z.read("manifest.json"))
    assert (
        manifest["mcp_servers"][0]["secret_env"] == ["API_TOKEN"]
        and "API_TOKEN" not in manifest["mcp_servers"][0]["env"]
    )
    assert str(home / "a") not in json.dumps(manifest["knowledge_bases"])

    b = _profile(home / "b", fake_llm)
    ws = home / "b" / "ws"
    # No terminal and no --yes: the preview, then a refusal; nothing is installed.
    refused = cashcode("agents", "import", str(package), env=b, cwd=ws)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "scripts/hello.py" in refused.stdout
    assert [x["spec"]["name"] for x in json.loads(_ok("agents", "list", "--json", env=b, cwd=ws).stdout)] == [
        "default"
    ]

    done = _ok("agents", "import", str(package), "--yes", env=b, cwd=ws)
    preview = done.stdout
    assert "program it runs: Skill greeter: scripts/hello.py" in preview
    assert f"MCP server echo: {sys.executable} {SERVER}" in preview and "API_TOKEN=<asked>" in preview
    assert "MODE=fast" in preview and "schedule: morning: daily 09:00" in preview
    assert "Approval mode: ask_writes" in preview
    assert "Left unset: echo: API_TOKEN" in done.stdout
    keyring = home / "b" / "keyring.json"
    assert not keyring.exists() or SECRET not in keyring.read_text()

    tasks = json.loads(_ok("tasks", "list", "--json", env=b, cwd=ws).stdout)
    assert [(t["name"], t["enabled"]) for t in tasks] == [("morning", False)]
    servers = _ok("mcp", "list", env=b, cwd=ws).stdout
    echo = [line for line in servers.splitlines() if line.startswith("echo ")]
    assert len(echo) == 1 and "[sandboxed" in echo[0], servers

    # The agent works end to end: its Skill's script runs, its MCP server is in its prompt. The
    # package could not make it autonomous; the user can.
    _ok("agents", "edit", "helper", "--approval-mode", "autonomous", env=b, cwd=ws)
    fake_llm.reset()
    fake_llm.script(
        {"tool_calls": [{"name": "skill_load", "arguments": {"name": "greeter"}}]},
        {
            "tool_calls": [
                {"name": "run_skill_script", "arguments": {"name": "greeter", "path": "scripts/hello.py"}}
            ]
        },
        {"text": "Greeted."},
    )
    asked = cashcode("ask", "--agent", "helper", "greet", env=b, cwd=ws)
    assert (asked.returncode, asked.stdout) == (0, "Greeted.\n"), asked.stderr
    requests = fake_llm.model_requests()
    system = requests[0].body["messages"][0]["content"]
    assert system.startswith("You are HELPER-PERSONA.") and "\n- echo" in system
    assert "[Skill loaded: greeter" in requests[1].body["messages"][-1]["content"]
    assert "HELLO-FROM-SCRIPT" in requests[2].body["messages"][-1]["content"]


def _run_pty(
    args: list[str], env: dict[str, str], cwd: Path, answer: str, secret: str = ""
) -> tuple[int, str]:
    """Run the CLI on a terminal and answer its question."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "app", *args], env=env, cwd=cwd,
                            stdin=follower, stdout=follower, stderr=follower)  # fmt: skip
    os.close(follower)
    out = b""
    answered = False
    secrets = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not answered and b"[y/N]" in out:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if out.count(b"(empty: set it later)") > secrets:
            secrets += 1
            os.write(leader, secret.encode() + b"\n")
    os.close(leader)
    return proc.wait(timeout=60), out.decode(errors="replace")


def test_version_2_preview_lists_exactly_the_new_script_and_host_and_declining_keeps_v1(
    home: Path, fake_llm: Any
) -> None:
    a = _exporter(home / "a", fake_llm)
    wa = home / "a" / "ws"
    v1 = home / "v1.cashagent"
    _ok("agents", "export", "helper", str(v1), env=a, cwd=wa)
    b = _profile(home / "b", fake_llm)
    wb = home / "b" / "ws"
    # On a terminal: confirm, then the secret input is asked for (not echoed, not imported).
    code, out = _run_pty(["agents", "import", str(v1)], b, wb, "y", secret="tok-from-terminal")
    assert code == 0 and "Installed agent 'helper' (version 1)." in out, out
    assert "echo: API_TOKEN (empty: set it later)" in out and "tok-from-terminal" not in out
    assert "Left unset" not in out
    assert "tok-from-terminal" in (home / "b" / "keyring.json").read_text()

    # Version 2: one more script, one more host (an HTTP MCP server).
    _skill(home / "a" / "data", "greeter", {"bye.py": "print('BYE')\n"})
    _ok("mcp", "add", "weather", "--url", "https://weather.example.com/mcp", env=a, cwd=wa)
    _ok("agents", "edit", "helper", "--mcp", "echo,weather", env=a, cwd=wa)
    v2 = home / "v2.cashagent"
    _ok("agents", "export", "helper", str(v2), "--version", "2", env=a, cwd=wa)

    before = _state(home / "b")
    code, out = _run_pty(["agents", "import", str(v2)], b, wb, "n")
    assert code == 1 and "Nothing was installed." in out, out
    listed = out.split("new or changed since then:")[1].split("Update 'helper'?")[0]
    lines = [line.strip() for line in listed.strip().splitlines()]
    assert lines == [
        "- program it runs: Skill greeter: scripts/bye.py (sha256 "
        + hashlib.sha256(b"print('BYE')\n").hexdigest()[:12]
        + ")",
        "- host it reaches: weather.example.com (MCP server weather, http)",
    ], out
    assert "Update of the installed version 1" in out
    assert _state(home / "b") == before  # declining leaves version 1 byte-identical
    assert not any((home / "b" / "data" / "agents" / "staging").iterdir())

    code, out = _run_pty(["agents", "import", str(v2)], b, wb, "y")
    assert code == 0 and "Installed agent 'helper' (version 2)." in out, out
    assert (
        home / "b" / "data" / "skills" / "user" / "greeter" / "scripts" / "bye.py"
    ).read_text() == "print('BYE')\n"
    again = cashcode("agents", "import", str(v1), "--yes", env=b, cwd=wb)
    assert again.returncode == 1 and "version 2 of 'helper' is installed" in again.stderr

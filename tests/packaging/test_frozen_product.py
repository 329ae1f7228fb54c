"""The frozen app is the whole product (issue 15 item 3), proven on the INSTALLED .deb (unpacked
into a clean root): every CLI command, MCP stdio servers run by the bundle's own executable
(never a Python on the machine) and gone when the app is killed, a real keychain, Skill hot
reload, and the tray + single-instance Quick Ask. Skips, saying how to build, without a package."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from playwright.sync_api import Playwright, sync_playwright
from websockets.sync.client import connect

from app.cli.main import COMMANDS, EXTERNAL, build_parser
from app.settings.secrets import MASK, SERVICE, provider_key_name
from tests.desktop.harness import launch
from tests.desktop.x11 import tray_icon_center
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_desktop_presence import QUICK_TITLE, App, tray_display  # noqa: F401  (fixture)
from tests.mcp.test_child_lifetime import descendants, wait_gone
from tests.packaging.installed import Installed, private_env, run_cli, seed_provider
from tests.packaging.keychain import missing_keychain_tools, private_keychain
from tests.packaging.served import installed_serve
from tests.skills.helpers import write_skill

pytestmark = [pytest.mark.timeout(600)]
T = TypeVar("T")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = tmp_path / "cashcode"
    home = tmp_path / "home"  # no ~/.agents/skills or ~/.claude/skills of the machine's user
    home.mkdir()
    return {**private_env(base), "CASHCODE_RUNTIME_DIR": str(base / "runtime"), "NO_PROXY": "*",
            "HOME": str(home)}


def wait_for(what: str, probe: Callable[[], T | None], timeout_s: float = 60) -> T:
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def cli_command_paths() -> list[list[str]]:
    """Every command and sub-command of the SOURCE CLI, e.g. ["mcp", "call"]."""
    def walk(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
        found = [path]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += walk(sub, [*path, name])
        return found

    paths: list[list[str]] = []
    for name in COMMANDS:
        top = next(a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction))
        paths += walk(top.choices[name], [name])
    return paths + [[name] for name in EXTERNAL]


def test_every_cli_command_of_the_installed_app_answers_help(installed: Installed, env: dict[str, str],
                                                             tmp_path: Path) -> None:
    paths = cli_command_paths()
    assert len(paths) > 40 and ["mcp", "call"] in paths and ["serve"] in paths  # the walk saw them all
    failures = []
    for path in paths:
        result = run_cli(installed.cli, [*path, "--help"], env, tmp_path)
        usage = " ".join(result.stdout.split())
        if result.returncode != 0 or not usage.startswith(f"usage: cashcode {' '.join(path)} "):
            failures.append(f"{' '.join(path)}: rc={result.returncode} {result.stderr[-300:]}")
    assert failures == []


def python_trap(folder: Path) -> tuple[Path, Path]:
    """A PATH folder whose `python`, `python3`, … only leave a mark: if the frozen app ever
    looked for a Python on PATH, the mark shows it."""
    folder.mkdir()
    mark = folder / "python-was-run"
    for name in ("python", "python3", f"python3.{sys.version_info.minor}"):
        trap = folder / name
        trap.write_text(f"#!/bin/sh\ntouch '{mark}'\nexit 97\n", encoding="utf-8")
        trap.chmod(0o755)
    return folder, mark


def test_the_installed_cli_calls_the_builtin_stdio_mcp_server_with_its_own_executable(
    installed: Installed, env: dict[str, str], tmp_path: Path
) -> None:
    trap, mark = python_trap(tmp_path / "bin")
    env = {**env, "PATH": f"{trap}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    exe = str((installed.program / "cashcode").resolve())
    listed = run_cli(installed.cli, ["mcp", "list"], env, tmp_path)
    stdio = next(line for line in listed.stdout.splitlines() if line.startswith("test_stdio_mcp "))
    assert f"{exe} --mcp-builtin {installed.program.resolve()}/" in stdio, stdio
    call = ["mcp", "call", "test_stdio_mcp", "say_hello", "--args", '{"name": "Cash"}']
    called = run_cli(installed.cli, call, env, tmp_path)
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "Hello, Cash"
    assert not mark.exists()


def test_the_installed_cli_indexes_a_knowledge_base_in_its_own_worker_processes(
    installed: Installed, env: dict[str, str], tmp_path: Path
) -> None:
    """A run this size reads its files in worker processes (app/knowledge/pool.py): in the
    frozen app they are its own executable with `--kb-worker`, never a Python on the machine."""
    trap, mark = python_trap(tmp_path / "bin")
    env = {**env, "PATH": f"{trap}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(600):
        (root / f"n{n:03d}.md").write_text(f"# Note {n}\n\n" + "filler words here\n" * 600 + f"plum{n}\n",
                                           encoding="utf-8")
    program = installed.program.resolve()
    proc = subprocess.Popen([str(installed.cli), "kb", "add", str(root)], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: set[tuple[str, ...]] = set()
    while proc.poll() is None:
        for pid in descendants(proc.pid):
            try:
                seen.add(tuple(_cmdline(pid)[:2]))
            except (OSError, UnicodeDecodeError):
                continue
        time.sleep(0.01)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "600 file(s) indexed" in out, out
    workers = [cmd for cmd in seen if cmd[1:] == ("--kb-worker",)]
    assert workers and all(Path(cmd[0]).resolve().is_relative_to(program) for cmd in workers), seen
    assert "worker process" not in err, err  # no fallback to the app's own process
    found = run_cli(installed.cli, ["kb", "search", "plum77", "--json"], env, tmp_path)
    assert json.loads(found.stdout)[0]["path"] == str(root / "n077.md")
    assert not mark.exists()


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def test_killing_the_installed_app_leaves_no_mcp_child(installed: Installed, env: dict[str, str],
                                                       tmp_path: Path) -> None:
    trap, mark = python_trap(tmp_path / "bin")
    env = {**env, "PATH": f"{trap}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    exe = (installed.program / "cashcode").resolve()
    with installed_serve([str(installed.cli)], env, tmp_path) as served:
        view = served.data("mcp.servers.connect", {"name": "test_stdio_mcp"})
        assert view["status"] == "connected", view
        tools = served.data("mcp.servers.tools", {"name": "test_stdio_mcp"})["tools"]
        assert "say_hello" in {tool["name"] for tool in tools}
        children = descendants(served.proc.pid)
        roles = {_cmdline(pid)[1] for pid in children}
        assert {"--mcp-guard", "--mcp-builtin"} <= roles, [_cmdline(pid) for pid in children]
        assert {Path(os.readlink(f"/proc/{pid}/exe")) for pid in children} == {exe}
        served.proc.kill()  # SIGKILL: no clean-up code of the app runs
        served.proc.wait(30)
        survivors = [pid for pid in children if not wait_gone(pid, 30)]
        assert survivors == []
    assert not mark.exists()


@pytest.mark.skipif(missing_keychain_tools() is not None, reason=str(missing_keychain_tools()))
def test_the_installed_app_keeps_a_provider_key_in_the_system_keychain(
    installed: Installed, env: dict[str, str], tmp_path: Path, fake_llm: FakeLLMProcess
) -> None:
    secret = "sk-frozen-keychain-0123456789"
    with private_keychain(tmp_path / "keychain", env) as env, \
            installed_serve([str(installed.cli)], env, tmp_path) as served:
        keyring = served.data("app.info")["keyring"]
        assert keyring["available"] is True, keyring
        assert "SecretService" in keyring["backend"]
        saved = served.data("providers.save", {"name": "Frozen", "kind": "chat_completions",
                                               "base_url": fake_llm.openai_base_url, "api_key": secret})
        assert saved["api_key"] == MASK and saved["has_key"] is True
        with served.client() as client:
            listed = client.post("/api/invoke/providers.list", json={})
        assert secret not in listed.text
        assert [p["api_key"] for p in listed.json()["data"]["providers"]] == [MASK]
        # The secret is in the keychain itself: read it back from outside the app, from source.
        read = "import keyring, sys; print(keyring.get_password(sys.argv[1], sys.argv[2]))"
        reader = subprocess.run(
            [sys.executable, "-c", read, SERVICE, provider_key_name(saved["id"])],
            env={**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"},
            capture_output=True, text=True, timeout=60,
        )
        assert reader.stdout.strip() == secret, reader.stderr
    settings = (tmp_path / "cashcode" / "config").rglob("*")
    assert not any(secret in p.read_text(errors="ignore") for p in settings if p.is_file())


def test_without_a_keychain_the_installed_app_refuses_to_store_a_key(
    installed: Installed, env: dict[str, str], tmp_path: Path, fake_llm: FakeLLMProcess
) -> None:
    env = {**env, "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus"}
    with installed_serve([str(installed.cli)], env, tmp_path) as served:
        keyring = served.data("app.info")["keyring"]
        assert keyring["available"] is False, keyring
        provider = {"name": "Frozen", "kind": "chat_completions", "base_url": fake_llm.openai_base_url,
                    "api_key": "sk-nowhere-123"}
        refused = served.invoke("providers.save", provider)
        assert refused["ok"] is False and refused["error"]["code"] == "keyring_unavailable", refused
        assert served.data("providers.list")["providers"] == []
    stored = [p for p in (tmp_path / "cashcode").rglob("*") if p.is_file()]
    assert not any("sk-nowhere-123" in p.read_text(errors="ignore") for p in stored)


def test_the_installed_app_hot_reloads_a_skill_dropped_into_its_folder(
    installed: Installed, env: dict[str, str], tmp_path: Path
) -> None:
    """skills.list rescans on every call, so the proof of the watcher (watchfiles' compiled
    extension in the bundle) is the `skills_changed` event it publishes to the UI."""
    user_root = Path(env["CASHCODE_DATA_DIR"]) / "skills" / "user"
    with installed_serve([str(installed.cli)], env, tmp_path) as served, connect(
        f"ws://127.0.0.1:{served.port}/api/events", additional_headers=served.bearer, proxy=None,
        open_timeout=60,
    ) as events:
        before = {item["name"] for item in served.data("skills.list", {"page_size": 200})["items"]}
        assert "cashcode-skill-creator" in before and "dropped-in" not in before
        write_skill(user_root, "dropped-in")
        seen: list[dict[str, object]] = []
        deadline = time.monotonic() + 60
        while not any(e["type"] == "skills_changed" for e in seen):
            assert time.monotonic() < deadline, f"no skills_changed event; saw {seen}"
            seen += json.loads(events.recv(timeout=max(0.1, deadline - time.monotonic())))
        after = {item["name"] for item in served.data("skills.list", {"page_size": 200})["items"]}
        assert "dropped-in" in after
        assert served.proc.poll() is None  # the same process: no restart


@pytest.fixture
def pw() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.mark.desktop
def test_a_second_installed_launch_opens_quick_ask_in_the_running_tray_app(
    installed: Installed, env: dict[str, str], tray_display: str, fresh_llm: FakeLLMProcess,  # noqa: F811
    pw: Playwright, tmp_path: Path,
) -> None:
    # The single-instance socket goes to the default runtime folder (tagged by the data folder):
    # an AF_UNIX path under pytest's tmp_path would exceed the ~108-byte limit.
    env.pop("CASHCODE_RUNTIME_DIR")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    seed_provider(env, fresh_llm.openai_base_url, workspace)
    (Path(env["CASHCODE_DATA_DIR"]) / "tray-hint-shown").touch()  # no first-run balloon
    proc = launch([str(installed.cli)], env, tray_display)
    try:
        app = App(proc, pw, env)
        assert not app.quick_visible()
        wait_for("the tray icon", lambda: tray_icon_center(tray_display, proc.proc.pid))  # docked in trayer
        second = subprocess.run([str(installed.cli), "desktop", "--quick-ask", "hi"],
                                env={**os.environ, **env, "DISPLAY": tray_display}, cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 0, second.stderr
        wait_for("the Quick Ask window", app.quick_visible)
        assert QUICK_TITLE in app.windows()
        assert app.quick().get_by_test_id("composer-input").input_value() == "hi"
        assert proc.proc.poll() is None  # still the one instance
        assert proc.terminate(timeout_s=60) == 0, proc.tail()  # SIGTERM quits, tray or not
        assert proc.leftovers(timeout_s=30) == [], proc.tail()
    finally:
        if proc.proc.poll() is None:
            proc.proc.kill()

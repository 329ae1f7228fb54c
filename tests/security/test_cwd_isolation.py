"""Issue 33.1: no child process of the app imports from the current folder or the user's
environment. A cloned repo holding `json.py`, `random.py`, `uuid.py` or `app/__init__.py` (each
writing a marker when imported) is the current folder of `cashcode kb add .`, of `cashcode
serve` with an index run large enough for worker processes and a built-in MCP child: nothing
of it runs. The app is started as the user starts it: the installed `cashcode` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from app.knowledge import pool
from app.mcp import frozen
from tests.cli.conftest import base_env
from tests.server.process import isolated_env, serve_process

CASHCODE = Path(sys.executable).with_name("cashcode")  # the console script `pip install` made
HOSTILE = ("json.py", "random.py", "uuid.py", "app/__init__.py", "hello_server.py")


def hostile_repo(root: Path, markers: Path, files: int = 70) -> Path:
    """A repo whose Python files each leave a marker when imported, and `files` Markdown files
    (more than pool.MIN_FILES: the run uses worker processes)."""
    assert files >= pool.MIN_FILES
    markers.mkdir(parents=True, exist_ok=True)
    for name in HOSTILE:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tag = name.replace("/", "_")
        path.write_text(f"open({str(markers / tag)!r}, 'w').close()\n", encoding="utf-8")
    for n in range(files):
        (root / f"note-{n:03}.md").write_text(
            f"# Note {n}\n\nSome words about topic {n}.\n", encoding="utf-8"
        )
    return root


def test_the_installed_command_exists() -> None:
    assert CASHCODE.is_file(), "the tests run from a virtual environment with the app installed"


def test_kb_add_in_a_hostile_repo_runs_none_of_its_code(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path / "repo", tmp_path / "markers")
    env = base_env(tmp_path)
    done = subprocess.run(
        [str(CASHCODE), "kb", "add", ".", "--name", "Repo"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"Repo: {70 + len(HOSTILE)} file(s) indexed" in done.stdout
    assert "worker" not in done.stderr  # the workers ran (no "reading in this process")
    assert sorted(p.name for p in (tmp_path / "markers").iterdir()) == []


@pytest.mark.parametrize("where", ["worker", "builtin"])
def test_a_helper_ignores_pythonpath_and_the_current_folder(where: str, tmp_path: Path) -> None:
    """The app's own command lines for its helpers, run with a hostile current folder and a
    hostile PYTHONPATH: neither is imported (the helper still starts and answers)."""
    repo = hostile_repo(tmp_path / "repo", tmp_path / "markers")
    evil = hostile_repo(tmp_path / "evil", tmp_path / "markers")
    env = {**base_env(tmp_path), "PYTHONPATH": str(evil), "PYTHONSTARTUP": str(evil / "json.py")}
    if where == "worker":
        argv = pool.worker_argv()
        stdin = "[]\n"  # one empty group: the worker answers `[]`
    else:
        argv = frozen.script_argv(str(frozen.builtin_root() / "test_stdio_mcp" / "server.py"), [])
        stdin = ""
    done = subprocess.run(argv, cwd=repo, env=env, input=stdin, capture_output=True, text=True, timeout=120)
    assert sorted(p.name for p in (tmp_path / "markers").iterdir()) == [], done.stderr
    if where == "worker":
        assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


@pytest.mark.timeout(300)
def test_serve_with_an_index_run_and_an_mcp_child_runs_none_of_it(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    env = isolated_env(tmp_path, {"CASHCODE_MCP_TEST_SERVERS": "1", "CASHCODE_DREAM": "off"})
    repo = hostile_repo(Path(env["WORKSPACE_DIR"]), markers)
    serving = serve_process(["--no-open", "--port", "0"], env, cwd=repo, command=[str(CASHCODE), "serve"])
    with serving as served, httpx2.Client(base_url=served.base_url, trust_env=False, timeout=240) as client:

        def invoke(route: str, body: dict[str, object]) -> dict[str, object]:
            reply = client.post(f"/api/invoke/{route}", json=body, headers=served.bearer).json()
            assert reply["ok"], reply
            data: dict[str, object] = reply["data"]
            return data

        added = invoke("knowledge.add", {"path": str(repo), "name": "Repo"})
        assert added["run"] == {**added["run"], "indexed": 70 + len(HOSTILE)}  # type: ignore[dict-item]
        called = invoke("mcp.tools.call", {"name": "test_stdio_mcp", "tool": "say_hello"})
        assert called["ok"] and called["text"] == "Hello, Cash", called
    assert not any("worker" in line for line in served.output), "".join(served.output)
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.desktop
@pytest.mark.timeout(300)
def test_the_desktop_app_started_in_a_hostile_repo_runs_none_of_it(tmp_path: Path) -> None:
    """`cashcode desktop` (the real window under Xvfb) started from the repo: an index run large
    enough for workers and a built-in MCP child, through its local API."""
    import json

    from tests.desktop.harness import app_dirs_env, launch
    from tests.desktop.xvfb import xvfb
    from tests.e2e.test_desktop_signals import READY_TIMEOUT_S, _wait_for_file

    markers = tmp_path / "markers"
    repo = hostile_repo(tmp_path / "repo", markers)
    env = app_dirs_env(tmp_path / "cashcode")
    config = Path(env["CASHCODE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"local_api": True}), encoding="utf-8")
    runtime = tmp_path / "runtime"
    env.update(CASHCODE_RUNTIME_DIR=str(runtime), CASHCODE_QUICK_WINDOW="0", WORKSPACE_DIR=str(repo))
    with xvfb() as display:
        app = launch([str(CASHCODE), "desktop"], env, display.name, cdp=False, cwd=repo)
        try:
            info = _wait_for_file(runtime / "serve.json", lambda: app.proc.poll() is None, READY_TIMEOUT_S)
            headers = {"authorization": f"Bearer {info['token']}"}
            with httpx2.Client(base_url=str(info["url"]), trust_env=False, timeout=240) as client:
                body = {"path": str(repo), "name": "Repo"}
                added = client.post("/api/invoke/knowledge.add", json=body, headers=headers).json()
                assert added["ok"] and added["data"]["run"]["indexed"] == 70 + len(HOSTILE), added
                call = {"name": "test_stdio_mcp", "tool": "say_hello"}
                called = client.post("/api/invoke/mcp.tools.call", json=call, headers=headers).json()
                assert called["ok"] and called["data"]["text"] == "Hello, Cash", called
        finally:
            app.terminate()
    assert not any("worker" in line for line in app.output), app.tail()
    assert sorted(p.name for p in markers.iterdir()) == []

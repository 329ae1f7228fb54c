"""The Sandboxed approval mode through `cashcode ask` (issue 36): `exec` runs without asking,
confined by Landlock, and the model reads what the sandbox allowed in the tool result.

Each command is driven by the scripted fake LLM; the tool result is read from the next request
the app sent it. Skipped where the kernel has no Landlock (the unavailable case is tested by
switching the sandbox off, which every machine can do)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from app.sandbox.probe import private_namespaces
from tests.sandbox.listener import tcp_listener

from .conftest import cashcode


def _landlock() -> bool:
    from app.sandbox.probe import landlock_abi

    return landlock_abi({})[0] >= 1


pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not _landlock(), reason="needs Landlock"
)


@pytest.fixture
def fake_home(home: Path, env: dict[str, str]) -> Path:
    """A HOME with secrets in it, used by the app and its commands."""
    h = home / "fakehome"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_ed25519").write_text("SSH-SECRET-KEY\n")
    (h / ".bashrc").write_text("# original\n")
    env["HOME"] = str(h)
    return h


def _exec(
    fake_llm: Any, env: dict[str, str], home: Path, argv: list[str], *, extra: tuple[str, ...] = ()
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """Run one `exec` call in Sandboxed mode; return the tool result the model saw."""
    fake_llm.reset()
    fake_llm.script({"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}, {"text": "Done."})
    result = cashcode("ask", "--approval-mode", "sandboxed", *extra, "run it", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    requests = fake_llm.model_requests()
    assert len(requests) == 2, result.stderr
    tool_message = requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool"
    return str(tool_message["content"]), result


def test_a_sandboxed_exec_writes_the_workspace_and_its_temp_only(
    fake_llm: Any, env: dict[str, str], home: Path, fake_home: Path
) -> None:
    # Landlock alone (no user namespaces, as on stock Ubuntu 24.04): every path outside is
    # refused. With them, the same paths are not even there (tests/cli/test_cli_sandbox_private.py).
    env["CASHCODE_SANDBOX_NAMESPACES"] = "off"
    outside = Path("/tmp") / f"cashcode-sandbox-test-{uuid.uuid4().hex}"
    script = (
        'echo ok > inside.txt; echo t > "$TMPDIR/t" && echo temp-ok; '
        f"echo x > {outside}; echo evil >> {fake_home / '.bashrc'}; echo z > ../outside.txt"
    )
    content, run = _exec(fake_llm, env, home, ["/bin/sh", "-c", script])
    assert (home / "ws" / "inside.txt").read_text() == "ok\n"
    assert "temp-ok" in content
    assert not outside.exists()
    assert (fake_home / ".bashrc").read_text() == "# original\n"
    assert not (home / "outside.txt").exists()
    assert "Permission denied" in content
    assert "Sandbox: sandboxed (no network; writes only in the workspace" in content
    assert "(sandboxed)" in run.stderr  # the CLI's line
    assert "Run without the sandbox (file access outside the workspace)" in run.stderr  # asked, denied
    assert "Run a command" not in run.stderr  # nothing was asked


@pytest.mark.parametrize("namespaces", ["off", "on"])
def test_a_sandboxed_exec_reads_no_secret_by_any_path(
    fake_llm: Any, env: dict[str, str], home: Path, fake_home: Path, namespaces: str
) -> None:
    env["CASHCODE_SANDBOX_NAMESPACES"] = namespaces
    keyring = Path(env["CASHCODE_TEST_KEYRING_FILE"])
    keyring.write_text('{"KEYRING-SECRET": 1}')
    (home / "ws" / "link").symlink_to(fake_home)
    cashcode("ask", "--approval-mode", "read_only", "warm up", env=env, cwd=home / "ws")  # makes the database
    db = home / "data" / "cashcode.sqlite3"
    assert db.is_file()
    targets = [
        str(fake_home / ".ssh" / "id_ed25519"),
        "link/.ssh/id_ed25519",
        f"/proc/self/root{fake_home}/.ssh/id_ed25519",
        "../fakehome/.ssh/id_ed25519",
        str(keyring),
        str(db),
    ]
    content, _run = _exec(fake_llm, env, home, ["/bin/cat", *targets])
    assert (
        "SSH-SECRET-KEY" not in content and "KEYRING-SECRET" not in content and "SQLite format" not in content
    )
    if namespaces == "off":
        assert content.count("Permission denied") == len(targets), content
    else:  # this test's home lies under /tmp, which is private then: refused or not even there
        assert content.count("Permission denied") + content.count("No such file") == len(targets), content


def test_a_sandboxed_exec_cannot_connect_and_asking_to_escape_is_denied_without_a_terminal(
    fake_llm: Any, env: dict[str, str], home: Path
) -> None:
    with tcp_listener() as (port, accepted):
        upload = f"import socket; s = socket.create_connection(('127.0.0.1', {port})); s.sendall(b'LEAK')"
        content, run = _exec(fake_llm, env, home, ["/usr/bin/python3", "-c", upload])
    assert accepted == []
    assert "PermissionError" in content
    assert "may have blocked network access" in content
    # The app asked to run it without the sandbox; with no terminal the answer is no, and the
    # model is told so.
    assert "Run without the sandbox (network access)" in run.stderr
    assert "did not allow running it without the sandbox" in content


def test_a_child_left_running_is_killed_with_the_call(fake_llm: Any, env: dict[str, str], home: Path) -> None:
    marker = str(7000 + uuid.uuid4().int % 1000)
    content, _run = _exec(
        fake_llm, env, home, ["/bin/sh", "-c", f"setsid sleep {marker} > /dev/null 2>&1 & echo started"]
    )
    assert "started" in content
    assert not any(_cmdline(pid) == ["sleep", marker] for pid in os.listdir("/proc") if pid.isdigit())


def _cmdline(pid: str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError:
        return []


def test_ordinary_work_runs_unchanged_in_the_sandbox(fake_llm: Any, env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    (ws / "test_tiny.py").write_text("def test_adds():\n    assert 1 + 1 == 2\n")
    # The interpreter of this test run lives outside the system folders: the user lists it.
    python = Path(sys.executable)
    readable = sorted({sys.prefix, sys.base_prefix, str(python.resolve().parent.parent)})
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"sandbox_readable": readable}))
    content, _run = _exec(
        fake_llm, env, home, [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_tiny.py"]
    )
    assert "1 passed" in content and "Exit code: 0" in content, content
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run(["git", "-C", str(ws), "add", "test_tiny.py"], check=True)
    subprocess.run(
        ["git", "-C", str(ws), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first"],
        check=True,
    )
    (ws / "test_tiny.py").write_text("def test_adds():\n    assert 2 + 2 == 4\n")
    for argv, expected in (
        (["git", "status", "--short"], "M test_tiny.py"),
        (["git", "diff"], "+    assert 2 + 2 == 4"),
        (["git", "log", "--oneline"], "first"),
    ):
        content, _run = _exec(fake_llm, env, home, argv)
        assert expected in content and "Exit code: 0" in content, content
        assert "Sandbox: sandboxed" in content
        if private_namespaces({})[0]:  # this work runs in a private network and /tmp here
            assert "Sandbox: sandboxed, private network and /tmp" in content, content
    doc = next(p for p in Path("/usr/share/doc").glob("*/copyright") if p.is_file())
    content, _run = _exec(fake_llm, env, home, ["/bin/cat", str(doc)])
    assert "Exit code: 0" in content and doc.read_text(errors="replace")[:40] in content


def test_without_a_sandbox_sandboxed_mode_asks_and_says_why(
    fake_llm: Any, env: dict[str, str], home: Path
) -> None:
    env["CASHCODE_SANDBOX"] = "off"
    fake_llm.script(
        {"tool_calls": [{"name": "exec", "arguments": {"argv": ["touch", "made.txt"]}}]}, {"text": "ok"}
    )
    run = cashcode("ask", "--approval-mode", "sandboxed", "touch", env=env, cwd=home / "ws")
    assert run.returncode == 0, run.stderr
    assert "Denied exec: Run a command" in run.stderr
    assert "not sandboxed: disabled by CASHCODE_SANDBOX" in run.stderr
    assert not (home / "ws" / "made.txt").exists()


def test_config_sandbox_reports_the_machine_and_the_plan(env: dict[str, str], home: Path) -> None:
    shown = cashcode("config", "sandbox", "--json", env=env, cwd=home / "ws")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["available"] and report["landlock_abi"] >= 1
    assert "runs exec, approved git and Skill scripts without asking" in report["plan"]
    assert str(home / "data") in report["never_readable"]
    assert any(p.endswith("/.ssh") for p in report["never_readable"])
    env["CASHCODE_SANDBOX"] = "off"
    off = cashcode("config", "sandbox", env=env, cwd=home / "ws")
    assert off.returncode == 0, off.stderr
    assert "Landlock:        no (disabled by CASHCODE_SANDBOX)" in off.stdout
    assert "asks before every command" in off.stdout


UNPRIVILEGED_CHILD = r"""
import socket, subprocess, sys
from pathlib import Path
from app.sandbox.confine import confine, private_temp
from app.sandbox.landlock import Landlock
from app.sandbox.policy import Policy

workspace, secret, outside, port = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
lock = Landlock.load()
policy = Policy(workspace=workspace, temp=private_temp(), hidden=(Path(secret).parent,))
c = confine(policy, lock, lock.abi())
script = (
    f"echo ok > {workspace}/inside; cat {secret}; echo x > {outside}; "
    f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))'"
)
child = c.popen(["/bin/sh", "-c", script], env={"PATH": "/usr/bin:/bin", **c.env},
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(child.communicate()[0])
c.close()
# This process (the "app") is not confined by its thread's start of the program.
Path(workspace, "app-wrote").write_text(Path(secret).read_text())
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("runuser") is None, reason="needs root and runuser")
def test_the_sandbox_holds_for_an_unprivileged_user(tmp_path: Path) -> None:
    import shutil
    import tempfile

    from .conftest import REPO

    base = Path(tempfile.mkdtemp(prefix="cashcode-sandbox-nobody-"))
    try:
        ws, secrets = base / "ws", base / "home" / ".ssh"
        ws.mkdir()
        secrets.mkdir(parents=True)
        (secrets / "id_ed25519").write_text("NOBODY-SECRET\n")
        outside = base / "outside.txt"
        for p in (base, ws, base / "home", secrets, secrets / "id_ed25519"):
            shutil.chown(p, "nobody")
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            done = subprocess.run(
                [
                    "runuser",
                    "-u",
                    "nobody",
                    "--",
                    "/usr/bin/python3",
                    "-c",
                    UNPRIVILEGED_CHILD,
                    str(ws),
                    str(secrets / "id_ed25519"),
                    str(outside),
                    str(server.getsockname()[1]),
                ],
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(REPO)},
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert done.returncode == 0, done.stderr
        assert (ws / "inside").read_text() == "ok\n"  # it ran, as nobody, and could write its workspace
        assert (ws / "app-wrote").read_text() == "NOBODY-SECRET\n"
        assert "NOBODY-SECRET" not in done.stdout
        assert not outside.exists()
        assert "PermissionError" in done.stdout and done.stdout.count("Permission denied") >= 2, done.stdout
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_git_that_would_ask_runs_confined_without_asking(
    fake_llm: Any, env: dict[str, str], home: Path, fake_home: Path
) -> None:
    ws = home / "ws"
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(ws), "add", "a.txt"], check=True)
    commit = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sandboxed commit"]
    content, run = _exec(fake_llm, env, home, commit)
    assert "Exit code: 0" in content and "Sandbox: sandboxed" in content, content
    assert "Run a command" not in run.stderr  # not asked
    log = subprocess.run(
        ["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True
    )
    assert log.stdout == "sandboxed commit\n"
    # Who commits comes from the user's global git config, which the sandbox cannot read.
    (fake_home / ".gitconfig").write_text("[user]\n\tname = Sandy Box\n\temail = sandy@example.org\n")
    (ws / "b.txt").write_text("b\n")
    content, run = _exec(fake_llm, env, home, ["git", "add", "b.txt"])
    assert "Exit code: 0" in content, content
    content, run = _exec(fake_llm, env, home, ["git", "commit", "-qm", "second"])
    assert "Exit code: 0" in content, content
    author = subprocess.run(
        ["git", "-C", str(ws), "log", "-1", "--format=%an <%ae>"], capture_output=True, text=True, check=True
    )
    assert author.stdout == "Sandy Box <sandy@example.org>\n"

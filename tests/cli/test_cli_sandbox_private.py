"""The sandbox's private network and /tmp (issue 36, decision 435), through `cashcode ask` in
the Sandboxed mode, as root (as CI runs) and as an unprivileged user through `runuser`.

Where user namespaces are allowed, each confined program has a network namespace of its own
(UDP, which Landlock does not filter, cannot leave either) and /tmp is its run's private temp
folder. `CASHCODE_SANDBOX_NAMESPACES=off` simulates a machine that refuses user namespaces:
then Landlock alone holds (and UDP gets out, which is why the namespaces are worth having).
The tool result is read from the next request the app sent the scripted LLM.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.sandbox.probe import landlock_abi, private_namespaces
from tests.sandbox.listener import tcp_listener

from .conftest import REPO, cashcode

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
    ),
    pytest.mark.skipif(not private_namespaces({})[0], reason="needs user namespaces (or root)"),
]


def _exec(fake_llm: Any, env: dict[str, str], home: Path, argv: list[str]) -> tuple[str, str]:
    """One `exec` call in Sandboxed mode: (the tool result the model saw, the CLI's stderr)."""
    fake_llm.reset()
    fake_llm.script({"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}, {"text": "Done."})
    run = cashcode("ask", "--approval-mode", "sandboxed", "run it", env=env, cwd=home / "ws")
    assert run.returncode == 0, run.stderr
    requests = fake_llm.model_requests()
    assert len(requests) == 2, run.stderr
    message = requests[1].body["messages"][-1]
    assert message["role"] == "tool"
    return str(message["content"]), run.stderr


@pytest.fixture
def udp_listener() -> Iterator[tuple[int, socket.socket]]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(2)
        yield s.getsockname()[1], s


def _received(s: socket.socket) -> bytes:
    try:
        return s.recv(100)
    except TimeoutError:
        return b""


def _send_udp(port: int) -> list[str]:
    code = (
        "import socket; "
        f"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'LEAK', ('127.0.0.1', {port}))"
    )
    return ["/usr/bin/python3", "-c", code]


def test_udp_to_a_loopback_listener_does_not_leave_the_sandbox(
    fake_llm: Any, env: dict[str, str], home: Path, udp_listener: tuple[int, socket.socket]
) -> None:
    port, listener = udp_listener
    content, stderr = _exec(fake_llm, env, home, _send_udp(port))
    assert _received(listener) == b""  # it went to the sandbox's own loopback, nowhere else
    assert "Sandbox: sandboxed, private network and /tmp (no network at all, UDP included" in content
    assert "↳ exec: sandboxed, private network and /tmp" in stderr  # the CLI's line

    # Without user namespaces Landlock alone holds, and it does not filter UDP: what the
    # namespace adds.
    env["CASHCODE_SANDBOX_NAMESPACES"] = "off"
    content, _stderr = _exec(fake_llm, env, home, _send_udp(port))
    assert _received(listener) == b"LEAK"
    assert "Sandbox: sandboxed (no network;" in content


def test_tmp_writes_land_in_a_private_tmp_the_host_never_sees(
    fake_llm: Any, env: dict[str, str], home: Path
) -> None:
    name = f"cashcode-private-{uuid.uuid4().hex}"
    (home / "ws" / "given.txt").write_text("from the workspace\n")
    script = (
        f"echo private > /tmp/{name} && cat /tmp/{name}; echo tmpdir=$TMPDIR home=$HOME; "
        "cat given.txt; echo made > made.txt"
    )
    content, _stderr = _exec(fake_llm, env, home, ["/bin/sh", "-c", script])
    assert "Exit code: 0" in content, content
    assert "private\n" in content and "tmpdir=/tmp home=/tmp" in content
    assert not (Path("/tmp") / name).exists()  # the host's /tmp never saw it
    # The workspace (here under the host's /tmp) is still where it was, readable and writable.
    assert "from the workspace" in content
    assert (home / "ws" / "made.txt").read_text() == "made\n"

    env["CASHCODE_SANDBOX_NAMESPACES"] = "off"  # Landlock alone: a write to /tmp is refused
    content, _stderr = _exec(fake_llm, env, home, ["/bin/sh", "-c", f"echo x > /tmp/{name}"])
    assert "Permission denied" in content
    assert not (Path("/tmp") / name).exists()


def test_tcp_stays_blocked_and_a_run_without_network_asks_for_it(
    fake_llm: Any, env: dict[str, str], home: Path
) -> None:
    with tcp_listener() as (port, accepted):
        upload = f"import socket; socket.create_connection(('127.0.0.1', {port})).sendall(b'LEAK')"
        content, stderr = _exec(fake_llm, env, home, ["/usr/bin/python3", "-c", upload])
    assert accepted == []
    assert "may have blocked network access" in content
    # A name lookup finds no name server in the private network: taken as "needs the network"
    # too, so the user is asked (no terminal here: denied, and the model is told).
    lookup = "import socket; socket.getaddrinfo('updates.example.org', 443)"
    content, stderr = _exec(fake_llm, env, home, ["/usr/bin/python3", "-c", lookup])
    assert "Exit code: 1" in content, content
    assert "Run without the sandbox (network access)" in stderr
    assert "did not allow running it without the sandbox" in content


def test_config_sandbox_says_what_applies(env: dict[str, str], home: Path) -> None:
    shown = cashcode("config", "sandbox", "--json", env=env, cwd=home / "ws")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["user_namespaces"] is True and report["namespaces_reason"] == ""
    assert "private network namespace" in report["plan"] and "private /tmp" in report["plan"]
    text = cashcode("config", "sandbox", env=env, cwd=home / "ws")
    assert "User namespaces: yes: a private network and /tmp for each program" in text.stdout
    off = cashcode("config", "sandbox", env={**env, "CASHCODE_SANDBOX_NAMESPACES": "off"}, cwd=home / "ws")
    assert "User namespaces: no (disabled by CASHCODE_SANDBOX_NAMESPACES)" in off.stdout
    assert "UDP is not filtered and /tmp is not private" in off.stdout


UNPRIVILEGED_CHILD = r"""
import socket, subprocess, sys
from pathlib import Path
from app.sandbox.confine import confine, private_temp
from app.sandbox.landlock import Landlock
from app.sandbox.policy import Policy

workspace, site, name, udp_port, tcp_port = Path(sys.argv[1]), *sys.argv[2:6]
lock = Landlock.load()
policy = Policy(workspace=workspace, temp=private_temp(), readable=(Path(site),))
c = confine(policy, lock, lock.abi(), private=True)
udp = ("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
       f".sendto(b'LEAK', ('127.0.0.1', {udp_port}))")
tcp = f"import socket; socket.create_connection(('127.0.0.1', {tcp_port}))"
script = (
    f"id -u; echo private > /tmp/{name} && cat /tmp/{name}; "
    f"python3 -c \"{udp}\" && echo udp-sent; python3 -c \"{tcp}\"; "
    "python3 -m pytest -q -p no:cacheprovider test_tiny.py; git status --short"
)
child = c.popen(["/bin/sh", "-c", script], cwd=str(workspace),
                env={"PATH": "/usr/bin:/bin", "PYTHONPATH": site, **c.env},
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(child.communicate()[0])
c.close()
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("runuser") is None, reason="needs root and runuser")
def test_private_network_and_tmp_for_an_unprivileged_user(
    udp_listener: tuple[int, socket.socket],
) -> None:
    # The system Python runs it (this test run's interpreter may not be readable by nobody);
    # pytest comes from this checkout's environment when it is of the same Python version.
    site = next(
        (Path(p) for p in sys.path if p.endswith("site-packages") and (Path(p) / "pytest").is_dir()), None
    )
    system = subprocess.run(
        ["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True
    )
    if site is None or system.stdout.strip() != str(tuple(sys.version_info[:2])):
        pytest.skip("needs a system Python of this test run's version")
    port, listener = udp_listener
    base = Path(tempfile.mkdtemp(prefix="cashcode-private-nobody-"))
    name = f"cashcode-private-{uuid.uuid4().hex}"
    try:
        ws = base / "ws"
        ws.mkdir()
        (ws / "test_tiny.py").write_text("def test_adds():\n    assert 1 + 1 == 2\n")
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        for p in (base, *base.rglob("*")):
            shutil.chown(p, "nobody")
        with tcp_listener() as (tcp_port, accepted):
            done = subprocess.run(
                ["runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", UNPRIVILEGED_CHILD,
                 str(ws), str(site), name, str(port), str(tcp_port)],
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(REPO)},
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert out.splitlines()[0] == str(pwd.getpwnam("nobody").pw_uid)  # it ran as nobody
        assert "private\n" in out and not (Path("/tmp") / name).exists()
        assert "udp-sent" in out and _received(listener) == b""  # sent, into its own loopback only
        assert accepted == [] and "PermissionError" in out
        assert "1 passed" in out, out  # ordinary work still runs
        assert "?? test_tiny.py" in out, out
    finally:
        shutil.rmtree(base, ignore_errors=True)

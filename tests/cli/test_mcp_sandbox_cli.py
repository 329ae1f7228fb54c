"""`cashcode mcp add --sandbox`, `mcp set`, `mcp list` marking a stdio server sandboxed or not
(issue 36), in real CLI subprocesses with a real stdio server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.sandbox.probe import landlock_abi, private_namespaces
from tests.cli.conftest import base_env, cashcode

ROUGH = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "rough_server.py"


@pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")
@pytest.mark.timeout(300)
def test_add_sandboxed_list_set_and_no_sandbox_means_not_started(home: Path) -> None:
    env = base_env(home)
    added = cashcode(
        "mcp", "add", "rough", "--sandbox", "--command", sys.executable, str(ROUGH),
        "--env-plain", "ROUGH_TOKEN=plain-1", env=env, cwd=home,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "sandboxed" in added.stdout and "not sandboxed" not in added.stdout
    listed = cashcode("mcp", "list", env=env, cwd=home)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("rough"))
    # where user namespaces are allowed, a server without the network grant also gets its own
    private = private_namespaces({})[0]
    assert row.endswith("[sandboxed, private network and /tmp]" if private else "[sandboxed]"), listed.stdout
    called = cashcode("mcp", "call", "rough", "echo_token", env=env, cwd=home, timeout=120)
    assert called.returncode == 0 and called.stdout.strip() == "token=plain-1", called.stderr

    # no sandbox on this machine (simulated): a sandboxed server is not started, never unconfined
    off = cashcode(
        "mcp", "call", "rough", "echo_token", env={**env, "CASHCODE_SANDBOX": "off"}, cwd=home, timeout=120
    )  # fmt: skip
    assert off.returncode != 0 and "token=" not in off.stdout
    assert "not started" in off.stderr + off.stdout

    turned = cashcode("mcp", "set", "rough", "--no-sandbox", env=env, cwd=home)
    assert turned.returncode == 0 and "not sandboxed (off for this server)" in turned.stdout
    listed = cashcode("mcp", "list", env=env, cwd=home)
    assert "[not sandboxed (off for this server)]" in listed.stdout

    remote = cashcode("mcp", "add", "web", "--url", "https://example.com/mcp", "--sandbox", env=env, cwd=home)
    assert remote.returncode != 0 and "stdio" in remote.stderr
    nothing = cashcode("mcp", "set", "rough", env=env, cwd=home)
    assert nothing.returncode != 0 and "--sandbox" in nothing.stderr


PROBE = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "probe_server.py"


@pytest.mark.skipif(
    landlock_abi({})[0] < 1 or not private_namespaces({})[0], reason="needs Landlock and user namespaces"
)
@pytest.mark.timeout(300)
def test_a_sandboxed_server_without_network_gets_a_private_network_and_tmp(home: Path) -> None:
    import socket
    import uuid

    env = base_env(home)
    added = cashcode(
        "mcp", "add", "probe", "--sandbox", "--command", sys.executable, str(PROBE), env=env, cwd=home
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    name = f"cashcode-mcp-private-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.settimeout(2)
        port = listener.getsockname()[1]

        def received() -> bytes:
            try:
                return listener.recv(100)
            except TimeoutError:
                return b""

        args = json.dumps({"port": port})
        sent = cashcode("mcp", "call", "probe", "udp_send", "--args", args, env=env, cwd=home, timeout=120)
        assert sent.returncode == 0 and sent.stdout.strip() == "sent", sent.stderr
        assert received() == b""  # into the server's own loopback, nowhere else
        tmp_args = json.dumps({"name": name})
        call = ("mcp", "call", "probe", "write_tmp", "--args", tmp_args)
        wrote = cashcode(*call, env=env, cwd=home, timeout=120)
        assert "wrote 'from the server'; TMPDIR=/tmp" in wrote.stdout, wrote.stderr
        assert not (Path("/tmp") / name).exists()

        # With the network grant: no private namespaces (Landlock alone, any host).
        granted = cashcode("mcp", "set", "probe", "--sandbox", "--network", env=env, cwd=home)
        assert granted.returncode == 0 and "network allowed (any host)" in granted.stdout, granted.stderr
        sent = cashcode("mcp", "call", "probe", "udp_send", "--args", args, env=env, cwd=home, timeout=120)
        assert sent.stdout.strip() == "sent", sent.stderr
        assert received() == b"FROM-SERVER"

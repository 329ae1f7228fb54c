"""`cashcode serve` stopped by SIGTERM (service managers, logout) or SIGHUP (the terminal closed)
shuts down like Ctrl+C: serve.json (it holds the Bearer token) is removed, MCP children stop."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import httpx2
import pytest

from tests.mcp.test_child_lifetime import descendants, wait_gone
from tests.server.process import STOP_TIMEOUT_S, isolated_env, serve_process

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_removes_serve_json_and_stops_mcp_children(tmp_path: Path, signum: int) -> None:
    env = isolated_env(tmp_path)
    runtime = tmp_path / "runtime" / "serve.json"
    with serve_process(["--no-open", "--port", "0"], env) as served:
        with httpx2.Client(base_url=served.base_url, trust_env=False, timeout=60) as client:
            connected = client.post(
                "/api/invoke/mcp.servers.connect", json={"name": "test_stdio_mcp"}, headers=served.bearer
            )
        assert connected.status_code == 200 and connected.json()["ok"] is True, connected.text
        kids = descendants(served.proc.pid)
        assert kids, "the stdio MCP server should be a child of the server"
        assert runtime.exists()
        served.proc.send_signal(signum)
        code = served.proc.wait(timeout=STOP_TIMEOUT_S)
    assert code == 0, "".join(served.output)
    assert not runtime.exists()
    assert [pid for pid in kids if not wait_gone(pid, 20)] == []
    assert not any("Traceback" in line for line in served.output), "".join(served.output)

"""`cashcode desktop` stopped by SIGTERM (logout, service managers) or SIGHUP (the terminal it was
started from closed) quits like the tray's Quit: the local API's serve.json (it holds the Bearer
token) is removed and no MCP child is left."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import httpx2
import pytest

from tests.desktop.harness import desktop_command, launch

READY_TIMEOUT_S = 90.0


def _wait_for_file(path: Path, proc_alive: object, timeout_s: float) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
            return data
        except (OSError, ValueError):
            assert callable(proc_alive) and proc_alive(), "the app exited before publishing serve.json"
            time.sleep(0.1)
    raise AssertionError(f"no {path} in time")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_quits_removing_serve_json_and_the_mcp_children(
    xvfb_display: str, app_env: dict[str, str], tmp_path: Path, signum: int
) -> None:
    config = Path(app_env["CASHCODE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"local_api": True}), encoding="utf-8")
    runtime = tmp_path / "runtime"
    env = {**app_env, "CASHCODE_RUNTIME_DIR": str(runtime), "CASHCODE_QUICK_WINDOW": "0"}
    app = launch(desktop_command(), env, xvfb_display, cdp=False)
    try:
        info = _wait_for_file(runtime / "serve.json", lambda: app.proc.poll() is None, READY_TIMEOUT_S)
        with httpx2.Client(base_url=str(info["url"]), trust_env=False, timeout=60) as client:
            connected = client.post(
                "/api/invoke/mcp.servers.connect",
                json={"name": "test_stdio_mcp"},
                headers={"authorization": f"Bearer {info['token']}"},
            )
        assert connected.status_code == 200 and connected.json()["ok"] is True, connected.text
        app.proc.send_signal(signum)
        assert app.proc.wait(60) == 0, app.tail()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
            app.proc.wait(10)
    assert not (runtime / "serve.json").exists()
    assert app.leftovers() == []

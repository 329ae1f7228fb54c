"""Single instance over a real AF_UNIX socket, with real processes (a crashed primary is a
process killed with SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.desktop.single_instance import Endpoint, acquire, endpoint_for, forward, runtime_dir

ROOT = Path(__file__).resolve().parents[2]

PRIMARY = """
import sys, threading
from pathlib import Path
from app.desktop.single_instance import acquire, endpoint_for
endpoint = endpoint_for(Path(sys.argv[1]), {"CASHCODE_RUNTIME_DIR": sys.argv[2]})
primary = acquire(endpoint, [], lambda argv: print("GOT", argv, flush=True))
print("PRIMARY" if primary is not None else "FORWARDED", flush=True)
threading.Event().wait(120)
"""


@pytest.fixture
def endpoint(tmp_path: Path) -> Endpoint:
    return endpoint_for(tmp_path / "data", {"CASHCODE_RUNTIME_DIR": str(tmp_path / "run")})


def _start_primary(tmp_path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", PRIMARY, str(tmp_path / "data"), str(tmp_path / "run")],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "PRIMARY"
    return proc


def test_the_first_launch_listens_and_a_later_one_forwards_its_arguments(endpoint: Endpoint) -> None:
    received: list[list[str]] = []
    got = threading.Event()

    def on_message(argv: list[str]) -> None:
        received.append(argv)
        got.set()

    primary = acquire(endpoint, [], on_message)
    assert primary is not None
    try:
        assert acquire(endpoint, ["--quick-ask", "hi"], on_message) is None  # forwarded
        assert got.wait(10)
        assert received == [["--quick-ask", "hi"]]
    finally:
        primary.close()
    assert not Path(endpoint.address).exists() and not endpoint.key_path.exists()  # nothing stale


def test_a_socket_left_by_a_killed_instance_is_cleaned_up(tmp_path: Path, endpoint: Endpoint) -> None:
    proc = _start_primary(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert Path(endpoint.address).exists()  # the crash left its socket behind
    assert forward(endpoint, []) is False  # nobody answers it
    primary = acquire(endpoint, [], lambda argv: None)
    assert primary is not None  # the stale socket was replaced, not fatal
    primary.close()


def test_a_live_primary_in_another_process_receives_the_request(tmp_path: Path, endpoint: Endpoint) -> None:
    proc = _start_primary(tmp_path)
    try:
        assert acquire(endpoint, ["--import-skill", "/tmp/x.zip"], lambda argv: None) is None
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "GOT ['--import-skill', '/tmp/x.zip']"
    finally:
        proc.kill()
        proc.wait(10)


def test_a_client_without_the_key_is_refused(tmp_path: Path, endpoint: Endpoint) -> None:
    received: list[list[str]] = []
    primary = acquire(endpoint, [], received.append)
    assert primary is not None
    try:
        endpoint.key_path.write_bytes(b"not the key")  # what another user's process would guess
        with pytest.raises(OSError):
            forward(endpoint, ["--quick-ask"])
        assert received == []
    finally:
        primary.close()


def test_different_data_folders_are_different_instances(tmp_path: Path) -> None:
    env = {"CASHCODE_RUNTIME_DIR": str(tmp_path / "run")}
    assert endpoint_for(tmp_path / "a", env).address != endpoint_for(tmp_path / "b", env).address


def test_the_runtime_folder_is_private_to_the_user(tmp_path: Path) -> None:
    folder = runtime_dir({"CASHCODE_RUNTIME_DIR": str(tmp_path / "run")})
    assert folder == tmp_path / "run"
    assert folder.stat().st_mode & 0o077 == 0


def test_a_second_cashcode_desktop_says_it_brought_the_running_one_to_the_front(tmp_path: Path) -> None:
    proc = _start_primary(tmp_path)
    try:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "CASHCODE_DATA_DIR": str(tmp_path / "data"),
            "CASHCODE_RUNTIME_DIR": str(tmp_path / "run"),
        }
        second = subprocess.run(
            [sys.executable, "-m", "app", "desktop"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == "CashCode is already running — brought it to the front"
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "GOT []"  # the running one was asked to show itself
    finally:
        proc.kill()
        proc.wait(10)

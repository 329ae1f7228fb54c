from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict
from pathlib import Path

import pytest

from app.server.runtime_file import ENV_RUNTIME_DIR, RuntimeFile, RuntimeInfo, runtime_dir


def test_the_env_variable_overrides_the_platform_runtime_folder(tmp_path: Path) -> None:
    assert runtime_dir({ENV_RUNTIME_DIR: str(tmp_path)}) == tmp_path
    assert runtime_dir({}).name == "CashCode"


def test_publish_writes_a_private_file_and_remove_deletes_only_our_own(tmp_path: Path) -> None:
    runtime = RuntimeFile(tmp_path / "rt")
    info = RuntimeInfo(url="http://127.0.0.1:1234", port=1234, token="t", pid=os.getpid())
    assert runtime.publish(info) is True
    assert runtime.read() == info
    assert runtime.path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "rt").stat().st_mode & 0o777 == 0o700
    assert [p.name for p in (tmp_path / "rt").iterdir()] == ["serve.json"]
    # Another server replaced it in the meantime: ours must not delete theirs.
    other = RuntimeInfo(url="http://127.0.0.1:1", port=1, token="other", pid=os.getpid())
    runtime.path.write_text(json.dumps(asdict(other)), encoding="utf-8")
    runtime.remove()
    assert runtime.read() == other


def test_a_file_of_another_live_server_is_left_alone_but_a_dead_or_damaged_one_is_replaced(
    tmp_path: Path,
) -> None:
    runtime = RuntimeFile(tmp_path)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        live = RuntimeInfo(url=f"http://127.0.0.1:{port}", port=port, token="live", pid=os.getppid())
        assert runtime.publish(live) is True
        mine = RuntimeInfo(url="http://127.0.0.1:2", port=2, token="mine", pid=os.getpid())
        assert runtime.publish(mine) is False
        assert runtime.read() == live
    # Same pid still alive, but nothing listens on its port any more: stale.
    assert runtime.publish(mine) is True
    assert runtime.read() == mine
    runtime.path.write_text("{not json", encoding="utf-8")
    assert runtime.read() is None
    assert runtime.publish(mine) is True
    runtime.remove()
    assert not runtime.path.exists()


def test_a_runtime_folder_open_to_others_is_closed_and_a_symlinked_one_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    info = RuntimeInfo(url="http://127.0.0.1:1", port=1, token="t", pid=os.getpid())
    assert RuntimeFile(shared).publish(info) is True
    assert shared.stat().st_mode & 0o777 == 0o700
    (tmp_path / "link").symlink_to(shared)
    with pytest.raises(PermissionError):
        RuntimeFile(tmp_path / "link").publish(info)

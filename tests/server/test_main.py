from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.server.main import run


def test_a_port_in_use_is_a_one_line_error_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        opened: list[str] = []
        code = run(["--port", str(port)], open_browser=opened.append)
    captured = capsys.readouterr()
    assert code == 1
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert f"port {port}" in lines[0]
    assert "already in use" in lines[0]
    assert "--port" in lines[0]
    assert captured.out == ""
    assert opened == []


def test_a_workspace_that_is_not_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(["--no-open", "--port", "0", "--workspace", str(tmp_path / "missing")])
    assert code == 1
    assert "workspace" in capsys.readouterr().err

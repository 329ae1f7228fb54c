"""Start `python -m app.server` (what `cashcode serve` runs) as a subprocess for tests."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Queue

START_URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)")
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0


@dataclass
class ServeProcess:
    proc: subprocess.Popen[str]
    start_url: str
    port: int
    token: str
    output: list[str]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    runtime_dir: Path | None = None

    def runtime_info(self) -> dict[str, object]:
        """serve.json as a script reads it."""
        assert self.runtime_dir is not None, "start the server with isolated_env()"
        data: dict[str, object] = json.loads((self.runtime_dir / "serve.json").read_text(encoding="utf-8"))
        return data

    @property
    def bearer(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.runtime_info()['token']}"}


def isolated_env(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Temp data/config/workspace dirs and the file-backed test keyring (shared with the test)."""
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "CASHCODE_DATA_DIR": str(root / "data"),
        "CASHCODE_CONFIG_DIR": str(root / "config"),
        "CASHCODE_LOG_DIR": str(root / "logs"),
        "CASHCODE_CACHE_DIR": str(root / "cache"),
        "WORKSPACE_DIR": str(workspace),
        "PYTHON_KEYRING_BACKEND": "app.testing.fake_keyring.FileKeyring",
        "CASHCODE_TEST_KEYRING_FILE": str(root / "keyring.json"),
        "PYTHONUNBUFFERED": "1",
        "NO_PROXY": "*",
        "CASHCODE_RUNTIME_DIR": str(root / "runtime"),
    }
    env.update(extra or {})
    return env


def _pump(stream: object, sink: Queue[str | None], lines: list[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.append(line)
        sink.put(line)
    sink.put(None)


@contextlib.contextmanager
def serve_process(
    args: list[str], env: Mapping[str, str], cwd: Path | None = None, command: list[str] | None = None
) -> Iterator[ServeProcess]:
    """Run the server until the block ends, then stop it with SIGINT (like Ctrl+C). `command`:
    what starts it (default `python -m app.server`; e.g. the installed `cashcode serve`)."""
    proc = subprocess.Popen(
        [*(command or [sys.executable, "-m", "app.server"]), *args],
        env=dict(env),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    queue: Queue[str | None] = Queue()
    threading.Thread(target=_pump, args=(proc.stdout, queue, lines), daemon=True).start()
    try:
        match = None
        while match is None:
            try:
                line = queue.get(timeout=START_TIMEOUT_S)
            except Empty as exc:
                raise AssertionError(f"no start URL; output so far: {''.join(lines)}") from exc
            if line is None:
                raise AssertionError(f"server exited ({proc.wait()}): {''.join(lines)}")
            match = START_URL.search(line)
        runtime = env.get("CASHCODE_RUNTIME_DIR")
        yield ServeProcess(
            proc,
            match.group(0),
            int(match.group(1)),
            match.group(2),
            lines,
            Path(runtime) if runtime else None,
        )
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

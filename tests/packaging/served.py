"""Run the INSTALLED program's `serve` and talk to its script API (bearer token from serve.json),
as a local script would — the frozen counterpart of tests/server/process.py."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import httpx2

START_URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=[A-Za-z0-9_-]+")
START_TIMEOUT_S = 120.0  # a frozen cold start on two loaded cores


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    token: str
    output: list[str]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def bearer(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"}

    def client(self) -> httpx2.Client:
        return httpx2.Client(base_url=self.base_url, trust_env=False, timeout=60, headers=self.bearer)

    def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The envelope of `/api/invoke/<route>` ({"ok": …, "data"|"error": …})."""
        with self.client() as client:
            resp = client.post(f"/api/invoke/{route}", json=dict(payload or {}))
        assert resp.status_code == 200, resp.text
        envelope: dict[str, Any] = resp.json()
        return envelope

    def data(self, route: str, payload: Mapping[str, Any] | None = None) -> Any:
        envelope = self.invoke(route, payload)
        assert envelope["ok"] is True, envelope
        return envelope["data"]


def _pump(stream: Any, sink: Queue[str | None], lines: list[str]) -> None:
    for line in stream:
        lines.append(line)
        sink.put(line)
    sink.put(None)


@contextlib.contextmanager
def installed_serve(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> Iterator[Served]:
    """`<argv> serve --port 0 --no-open` until the block ends; then SIGTERM (SIGKILL if it hangs).
    `env` must name CASHCODE_RUNTIME_DIR: the API token is read from its serve.json."""
    runtime = Path(env["CASHCODE_RUNTIME_DIR"])
    proc = subprocess.Popen([*argv, "serve", "--port", "0", "--no-open"], env=dict(env), cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
                raise AssertionError(f"serve exited ({proc.wait()}): {''.join(lines)}")
            match = START_URL.search(line)
        info = json.loads((runtime / "serve.json").read_text(encoding="utf-8"))
        yield Served(proc, int(match.group(1)), str(info["token"]), lines)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

"""Start a private Xvfb server for window tests (no xvfb-run: it is not on every machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class XDisplay:
    name: str  # e.g. ":7"
    pid: int


@contextmanager
def xvfb(size: str = "1280x800x24", timeout_s: float = 15.0) -> Iterator[XDisplay]:
    """Run Xvfb on a display number it picks itself (`-displayfd`), so parallel runs never clash."""
    binary = shutil.which("Xvfb")
    if binary is None:
        raise RuntimeError("Xvfb is not installed (apt-get install -y xvfb)")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [binary, "-displayfd", str(write_fd), "-screen", "0", size, "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write_fd)
    try:
        number = _read_display_number(read_fd, proc, timeout_s)
        yield XDisplay(name=f":{number}", pid=proc.pid)
    finally:
        os.close(read_fd)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _read_display_number(fd: int, proc: subprocess.Popen[bytes], timeout_s: float) -> int:
    import select

    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], timeout_s)
        if not ready:
            raise RuntimeError("Xvfb did not report its display in time")
        chunk = os.read(fd, 64)
        if not chunk:
            raise RuntimeError(f"Xvfb exited early (code {proc.poll()})")
        data += chunk
    return int(data.strip())

"""`python -m app ARGS` on a pseudo-terminal, as a person's terminal runs it: the process and a
Terminal that reads what it shows; the process is killed and the terminal closed afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.cli.test_chat_line_editing import Terminal


def terminal_signals() -> None:
    """In the child before it runs: Ctrl-C and a closed terminal act as they do in a terminal,
    even when the test run itself ignores them (`nohup`, or a background job of a script, whose
    children inherit SIGHUP or SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@contextmanager
def on_pty(
    args: list[str], env: dict[str, str], cwd: Path, *, size: tuple[int, int] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], Terminal]]:
    """`size` (rows, columns) sets the terminal's window size, as a real terminal reports it."""
    import pty  # POSIX only: the callers skip elsewhere

    master, slave = pty.openpty()
    if size is not None:
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=terminal_signals,
    )
    os.close(slave)
    try:
        yield proc, Terminal(master)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)

"""The desktop process ends after shutdown even when a non-daemon thread is stuck
(app/desktop/exit_guard.py), and returns normally when none is. Real child processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.desktop.harness import ROOT

_CHILD = textwrap.dedent(
    """
    import logging, sys, threading
    from app.desktop.exit_guard import leave_if_stuck
    logging.basicConfig(level=logging.INFO)
    stop = threading.Event()
    hold_s = float(sys.argv[1])
    threading.Thread(target=stop.wait, args=(hold_s,), name="waits-on-a-closed-page").start()
    leave_if_stuck(3, grace_s=0.5)
    print("returned", flush=True)
    """
)


def _child(hold_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(hold_s)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_a_stuck_thread_does_not_keep_the_process_alive() -> None:
    result = _child(hold_s=600)  # without the guard the child would live for ten minutes
    assert result.returncode == 3, result.stderr
    assert "returned" not in result.stdout
    assert "1 thread(s) still waiting after the windows closed (waits-on-a-closed-page)" in result.stderr


def test_threads_that_end_within_the_grace_period_are_waited_for() -> None:
    result = _child(hold_s=0.1)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "returned"
    assert "still waiting" not in result.stderr

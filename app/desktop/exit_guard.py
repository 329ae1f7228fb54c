"""The desktop process ends once its windows are closed, even when a thread is stuck.

pywebview starts threads that are not daemons (event handlers, bridge calls, its API injection)
and some of them wait for a page's answer to a script. When the window closes meanwhile,
pywebview deletes the page and the answer never comes; the interpreter's exit then waits for
that thread forever (seen in tests as a closed app that never exited). Our own page work runs on
daemon threads (page_hooks.py, strict_csp.py); this is the backstop for the rest: once shutdown
is done (app closed, state saved), wait briefly for the other non-daemon threads, then leave
without them, after flushing the logs."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

log = logging.getLogger(__name__)

GRACE_S = 2.0


def _waiting_threads() -> list[threading.Thread]:
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t is not me and not t.daemon and t.is_alive()]


def stuck_threads(grace_s: float) -> list[threading.Thread]:
    """Non-daemon threads (other than this one) still alive after up to `grace_s` seconds."""
    deadline = time.monotonic() + grace_s
    for thread in _waiting_threads():
        thread.join(max(0.0, deadline - time.monotonic()))
    return _waiting_threads()


def leave_if_stuck(code: int, grace_s: float = GRACE_S) -> None:
    """Return when every other non-daemon thread has ended within `grace_s`; otherwise log
    which are stuck and end the process now with `code`."""
    stuck = stuck_threads(grace_s)
    if not stuck:
        return
    log.warning(
        "exit: %d thread(s) still waiting after the windows closed (%s); leaving without them",
        len(stuck),
        ", ".join(t.name for t in stuck),
    )
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)

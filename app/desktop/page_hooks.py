"""Work that talks to the page after each load, off pywebview's event thread.

pywebview runs a window event's handlers on a thread of its own, and that thread is not a
daemon. A handler that calls `run_js` waits for the page to answer; if the window closes in that
moment (a user closing it right after it opened), the answer never comes, and that one thread
keeps the process alive after every window is gone: 2 of 30 frozen starts that were closed as
soon as the page had loaded hung in `threading._shutdown` with the drop-handler binding still in
`evaluate_js`. Such work therefore runs on a daemon thread, which the interpreter abandons at
exit (the pushers are daemons for the same reason)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def on_each_load(window: Any, work: Callable[[], None], name: str) -> None:
    """Run `work` on a daemon thread named `name` after every page load of `window`."""

    def start() -> None:
        threading.Thread(target=work, name=name, daemon=True).start()

    window.events.loaded += start

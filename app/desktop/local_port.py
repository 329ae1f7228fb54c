"""The port for pywebview's built-in asset server.

With `private_mode=False` pywebview serves the UI on a FIXED port (42001) so that the page's
origin, and with it localStorage, survives restarts. A fixed, well-known port is a problem:
a second instance (or any test running in parallel) collides with the first, and a local
process that grabs the port first would have its page loaded into our window with the full
bridge. So the desktop asks for a fresh random loopback port each launch. The UI keeps its
preferences in settings (via the API), not in localStorage, so nothing is lost.
"""

from __future__ import annotations

import socket


def free_loopback_port() -> int:
    """A port the OS just handed out on 127.0.0.1 (released again for pywebview to bind)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

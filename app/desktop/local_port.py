"""The port for pywebview's built-in asset server.

With `private_mode=False` pywebview serves the UI on a FIXED port (42001) so that the page's
origin, and with it localStorage, survives restarts. A fixed, well-known port is a problem:
a second instance (or any test running in parallel) collides with the first, and a local
process that grabs the port first would have its page loaded into our window with the full
bridge. So the desktop asks for a fresh random loopback port each launch. The UI keeps its
preferences in settings (via the API), not in localStorage, so nothing is lost.

The port is released before pywebview binds it, so a port promised to someone else in the
meantime must not be picked: Qt WebEngine's DevTools server (`QTWEBENGINE_REMOTE_DEBUGGING`,
set by whoever launched us) binds its port only once the web engine starts. When both got the
same port, the DevTools server won and the window showed its empty 404 instead of the UI, while
pywebview's server thread died on the bind error without a word.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping

_ATTEMPTS = 20


def reserved_ports(env: Mapping[str, str]) -> frozenset[int]:
    """Ports other parts of this process will bind later (`[host:]port` in the env)."""
    value = env.get("QTWEBENGINE_REMOTE_DEBUGGING", "").strip()
    port = value.rsplit(":", 1)[-1]
    return frozenset({int(port)}) if port.isdigit() else frozenset()


def os_loopback_port() -> int:
    """A port the OS just handed out on 127.0.0.1, released again."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def free_loopback_port(
    env: Mapping[str, str] | None = None, pick: Callable[[], int] = os_loopback_port
) -> int:
    """A free loopback port for pywebview to bind, never one reserved for this process's
    DevTools server."""
    avoid = reserved_ports(os.environ if env is None else env)
    for _ in range(_ATTEMPTS):
        port = pick()
        if port not in avoid:
            return port
    raise OSError("no free loopback port apart from the reserved ones")

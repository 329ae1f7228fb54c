"""A loopback TCP listener for the sandbox's network tests: does a confined program get through?"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def tcp_listener() -> Iterator[tuple[int, list[bytes]]]:
    """Listen on 127.0.0.1 in a thread: yields the port and what each connection sent first."""
    received: list[bytes] = []
    stop = threading.Event()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                with conn:
                    received.append(conn.recv(100))

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield server.getsockname()[1], received
        finally:
            stop.set()
            thread.join(5)

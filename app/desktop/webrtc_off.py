"""No WebRTC in the window's pages (issue 33 item 3, docs/decisions.md 290).

A Content-Security-Policy does not govern `RTCPeerConnection`: its ICE servers are contacted over
UDP and TCP with no fetch, so a model-written artifact could send data (in a TURN user name) to
any host. The artifact page closes that itself (frontend/public/artifact.html); the window adds
two rules the page cannot undo, because they are not the page's:
- a script Qt WebEngine runs in every frame of every page, at document creation and before any
  of the page's scripts, which removes the WebRTC constructors for good (non-configurable). The
  app's own pages do not use WebRTC;
- Chromium's WebRTC IP handling policy `disable_non_proxied_udp`: no UDP at all (STUN, TURN over
  UDP), whatever a page does.
"""

from __future__ import annotations

from typing import Any

# Added to QTWEBENGINE_CHROMIUM_FLAGS by app/desktop/qt_setup.py.
WEBRTC_FLAG = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"

SCRIPT_NAME = "cashcode-no-webrtc"
_SCRIPT = """(function () {
  var names = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "WebTransport"];
  for (var i = 0; i < names.length; i++) {
    try {
      Object.defineProperty(self, names[i],
        { value: undefined, writable: false, configurable: false, enumerable: false });
    } catch (e) { /* already removed in this realm */ }
  }
})();"""


def install(profile: Any) -> None:
    """Add the script to `profile` (every page of it, every frame), once."""
    from qtpy.QtWebEngineCore import QWebEngineScript

    scripts = profile.scripts()
    if scripts.find(SCRIPT_NAME):
        return
    script = QWebEngineScript()
    script.setName(SCRIPT_NAME)
    script.setSourceCode(_SCRIPT)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setRunsOnSubFrames(True)
    scripts.insert(script)

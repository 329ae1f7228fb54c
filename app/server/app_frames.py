"""`GET /mcp-app/<token>`: an MCP App's page for its sandboxed frame (issue 37).

Served from the server's root, outside `serve`'s secret prefix (like the artifact page,
docs/decisions.md 290), so the App's `location` holds no secret; no cookie is needed or sent.
The page is the one the person's UI just opened (`mcp.apps.open` made the token); its headers
carry a policy built only from the domains the App's resource declared
(app/server/headers.py), `sandbox allow-scripts` (an opaque origin even when opened on its
own), and every powerful feature off but those the person allowed. A prelude runs before the
App's own script and closes what a policy does not govern: WebRTC, and nested frames when the
App declared no frame domain (decision 290's reasons)."""

from __future__ import annotations

import re

from fastapi import APIRouter
from starlette.responses import Response

from app.server.contracts import ServedApp
from app.server.headers import app_frame_headers

_HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(r"<html(\s[^>]*)?>", re.IGNORECASE)
_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.IGNORECASE)

_SEAL_WEBRTC = """(function () {
  var define = Object.defineProperty;
  var names = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "WebTransport"];
  for (var i = 0; i < names.length; i++) {
    try { define(self, names[i], { value: undefined, writable: false, configurable: false }); } catch (e) {}
  }
})();"""

# A nested frame is a fresh realm with its own WebRTC: with no frame domain declared, no frame
# stays in the document (the same rule as the artifact page's loader).
_NO_FRAMES = """(function () {
  var FRAMES = "iframe,frame,object,embed,fencedframe,portal";
  var apply = Reflect.apply, remove = Element.prototype.remove, matches = Element.prototype.matches;
  var queryAll = Element.prototype.querySelectorAll, attachShadow = Element.prototype.attachShadow;
  var observe = MutationObserver.prototype.observe;
  var clean = function (node) {
    if (node.nodeType !== 1) return;
    if (apply(matches, node, [FRAMES])) return apply(remove, node, []);
    var inside = apply(queryAll, node, [FRAMES]);
    for (var i = inside.length - 1; i >= 0; i--) apply(remove, inside[i], []);
  };
  var observer = new MutationObserver(function (records) {
    for (var r = 0; r < records.length; r++)
      for (var n = 0; n < records[r].addedNodes.length; n++) clean(records[r].addedNodes[n]);
  });
  var WATCH = { childList: true, subtree: true };
  try {
    Object.defineProperty(Element.prototype, "attachShadow", {
      value: function (init) {
        var root = apply(attachShadow, this, [init]);
        apply(observe, observer, [root, WATCH]);
        return root;
      },
      writable: false, configurable: false
    });
  } catch (e) {}
  apply(observe, observer, [document, WATCH]);
})();"""


def with_prelude(html: str, *, frames_allowed: bool) -> str:
    """The App's page with the prelude as the first script of its head."""
    body = html if frames_allowed else html.replace("shadowrootmode", "data-shadowrootmode")
    script = "<script>" + _SEAL_WEBRTC + ("" if frames_allowed else _NO_FRAMES) + "</script>"
    for pattern in (_HEAD, _HTML, _DOCTYPE):
        found = pattern.search(body)
        if found:
            return body[: found.end()] + script + body[found.end() :]
    return script + body


def app_frame_router(app: ServedApp, port: int) -> APIRouter:
    router = APIRouter()

    @router.get("/mcp-app/{token}", include_in_schema=False)
    async def app_page(token: str) -> Response:
        answer = await app.invoke("mcp.apps.page", {"token": token})
        if not answer.get("ok"):
            return Response(
                "This App page is no longer open.",
                status_code=404,
                media_type="text/plain",
                headers={"cache-control": "no-store"},
            )
        page = answer["data"]
        headers = app_frame_headers(
            port,
            connect=page["connect_domains"],
            resources=page["resource_domains"],
            frames=page["frame_domains"],
            base_uris=page["base_uri_domains"],
            allow=page["allow"],
        )
        html = with_prelude(page["html"], frames_allowed=bool(page["frame_domains"]))
        response = Response(html, media_type="text/html; charset=utf-8")
        for name, value in headers:
            response.headers.append(name.decode("ascii"), value.decode("ascii"))
        return response

    return router

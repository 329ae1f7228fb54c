"""The App pages ready to be framed: a random token per render → the page and its declared
policy. The frame loads `/mcp-app/<token>` from the server's root (outside `serve`'s secret
prefix, so its `location` holds no secret); the server adapter asks for the page by token and
sends it with a policy built only from what the resource declared (app/server/app_frames.py).

Kept in memory, newest last, at most MAX_PAGES: a token only names a page the person's own UI
asked for, and it grants nothing but that page again."""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass

from app.mcp.apps import FEATURE, AppPolicy, Permission

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


def with_prelude(html: str, *, frames_allowed: bool, csp: str) -> str:
    """The App's page with its policy as a `<meta>` (the same as `serve`'s header; the window's
    loader has no header to send, frontend/public/mcp-app.html) and the prelude as the first
    script of its head."""
    body = html if frames_allowed else html.replace("shadowrootmode", "data-shadowrootmode")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
    script = meta + "<script>" + _SEAL_WEBRTC + ("" if frames_allowed else _NO_FRAMES) + "</script>"
    for pattern in (_HEAD, _HTML, _DOCTYPE):
        found = pattern.search(body)
        if found:
            return body[: found.end()] + script + body[found.end() :]
    return script + body


MAX_PAGES = 64
PAGE_PATH = "/mcp-app/"


@dataclass(frozen=True)
class AppPage:
    html: str
    policy: AppPolicy
    allowed: tuple[Permission, ...] = ()  # declared and allowed by the person

    @property
    def features(self) -> list[str]:
        return [FEATURE[p] for p in self.allowed]


class AppPages:
    def __init__(self, limit: int = MAX_PAGES) -> None:
        self._limit = limit
        self._pages: OrderedDict[str, AppPage] = OrderedDict()

    def add(self, page: AppPage) -> str:
        """The page's address (from the server's root)."""
        token = secrets.token_urlsafe(24)
        self._pages[token] = page
        while len(self._pages) > self._limit:
            self._pages.popitem(last=False)
        return PAGE_PATH + token

    def get(self, token: str) -> AppPage | None:
        return self._pages.get(token)

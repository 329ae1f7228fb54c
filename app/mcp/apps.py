"""MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): what a tool's and a UI
resource's `_meta.ui` declare, read defensively from whatever a server sent.

A tool with `_meta.ui.resourceUri` (a `ui://` resource of type `text/html;profile=mcp-app`)
shows that page in its tool card; `_meta.ui.visibility` says who may call it (the model, the
App, or both). The resource's own `_meta.ui` declares the domains its page may reach (`csp`)
and the powerful features it asks for (`permissions`). Nothing declared: no network, no
feature. Declared values that are not plain origins are dropped, never passed into a policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
# What CashCode advertises in its client capabilities (the extension's settings).
EXTENSION_SETTINGS: dict[str, Any] = {"mimeTypes": [MIME_TYPE]}

Visibility = Literal["model", "app"]
Permission = Literal["camera", "microphone", "geolocation", "clipboardWrite"]
PERMISSIONS: tuple[Permission, ...] = ("camera", "microphone", "geolocation", "clipboardWrite")
# The `allow` attribute's name of each permission (Permissions Policy features).
FEATURE: dict[Permission, str] = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
MAX_DOMAINS = 32  # per kind: a page asking for more is refused the rest

# An origin a policy may name: a scheme, a host (optionally `*.` for subdomains) and a port.
# No path, quote, space or semicolon can get through (they would change the policy).
_ORIGIN = re.compile(r"^(https|wss|http|ws)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?/?$")
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def ui_meta(meta: Any) -> Mapping[str, Any]:
    """The `ui` object of a `_meta`, or empty."""
    if not isinstance(meta, Mapping):
        return {}
    ui = meta.get("ui")
    return ui if isinstance(ui, Mapping) else {}


def resource_uri(meta: Any) -> str | None:
    """The tool's App page: `_meta.ui.resourceUri`, or the older flat `_meta["ui/resourceUri"]`."""
    uri = ui_meta(meta).get("resourceUri")
    if not isinstance(uri, str) and isinstance(meta, Mapping):
        uri = meta.get("ui/resourceUri")
    if isinstance(uri, str) and uri.startswith("ui://") and len(uri) <= 2_000:
        return uri
    return None


def visibility(meta: Any) -> tuple[Visibility, ...]:
    """Who may call the tool; the default (nothing or nothing valid declared) is both."""
    raw = ui_meta(meta).get("visibility")
    if not isinstance(raw, list):
        return ("model", "app")
    seen: list[Visibility] = []
    for v in raw:
        if v == "model" and "model" not in seen:
            seen.append("model")
        elif v == "app" and "app" not in seen:
            seen.append("app")
    return tuple(seen) or ("model", "app")


def for_model(vis: tuple[str, ...]) -> bool:
    return "model" in vis


def for_app(vis: tuple[str, ...]) -> bool:
    return "app" in vis


@dataclass(frozen=True)
class AppPolicy:
    """What a UI resource declared: the origins per kind and the permissions it asks for."""

    connect: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()
    base_uris: tuple[str, ...] = ()
    permissions: tuple[Permission, ...] = ()
    prefers_border: bool | None = None
    dropped: tuple[str, ...] = field(default=())  # declared values refused (shown in previews)

    @property
    def declares_network(self) -> bool:
        return bool(self.connect or self.resources or self.frames or self.base_uris)


def app_policy(meta: Any) -> AppPolicy:
    """From a resource's `_meta` (its `ui.csp` and `ui.permissions`)."""
    ui = ui_meta(meta)
    csp = ui.get("csp")
    csp = csp if isinstance(csp, Mapping) else {}
    dropped: list[str] = []

    def origins(key: str) -> tuple[str, ...]:
        raw = csp.get(key)
        if not isinstance(raw, list):
            return ()
        kept: list[str] = []
        for value in raw:
            if isinstance(value, str) and _ORIGIN.match(value) and len(kept) < MAX_DOMAINS:
                kept.append(value.rstrip("/"))
            else:
                dropped.append(str(value)[:100])
        return tuple(dict.fromkeys(kept))

    perms_raw = ui.get("permissions")
    permissions: list[Permission] = []
    if isinstance(perms_raw, Mapping):
        permissions = [p for p in PERMISSIONS if perms_raw.get(p) not in (None, False)]
    border = ui.get("prefersBorder")
    return AppPolicy(
        connect=origins("connectDomains"),
        resources=origins("resourceDomains"),
        frames=origins("frameDomains"),
        base_uris=origins("baseUriDomains"),
        permissions=tuple(permissions),
        prefers_border=border if isinstance(border, bool) else None,
        dropped=tuple(dropped),
    )


def declared_policy(read: Any) -> AppPolicy:
    """What a `resources/read` answer of an App page declares (its first content's `_meta`):
    the tool lists of connected servers (decision 456) and the previews' probe use this."""
    content = next(iter(getattr(read, "contents", None) or []), None)
    return app_policy(getattr(content, "meta", None))


_INLINE = "'unsafe-inline'"


def page_policy(policy: AppPolicy) -> str:
    """The page's Content-Security-Policy, built only from the origins it declared (checked
    above): its inline script and style run; script, style, image, font and media also from the
    declared resource domains; connections only to the connect domains; frames only from the
    frame domains. Nothing declared: nothing loads from anywhere (docs/decisions.md 445). The
    server adds `frame-ancestors` and `sandbox` (which a `<meta>` policy cannot carry)."""

    def sources(*first: str, extra: tuple[str, ...]) -> str:
        listed = [*first, *extra]
        return " ".join(listed) if listed else "'none'"

    res = policy.resources
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {sources(_INLINE, extra=res)}",
            f"style-src {sources(_INLINE, extra=res)}",
            f"img-src {sources('data:', 'blob:', extra=res)}",
            f"font-src {sources('data:', extra=res)}",
            f"media-src {sources('data:', 'blob:', extra=res)}",
            f"connect-src {sources(extra=policy.connect)}",
            f"frame-src {sources(extra=policy.frames)}",
            f"base-uri {sources(extra=policy.base_uris)}",
            "form-action 'none'",
        ]
    )


def is_loopback(origin: str) -> bool:
    host = origin.split("://", 1)[-1].split("/", 1)[0]
    host = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    return host in _LOOPBACK_HOSTS

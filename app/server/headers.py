"""Security headers added to every HTTP response (SPEC S13)."""

from __future__ import annotations

from collections.abc import Sequence


def content_security_policy(port: int) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            # Vue components set inline style attributes; scripts stay strictly same-origin.
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            f"connect-src 'self' ws://127.0.0.1:{port} ws://localhost:{port}",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ]
    )


# The sandboxed preview page for HTML/SVG artifacts (frontend/public/artifact.html, issue 27,
# docs/decisions.md 150), as the guard sees it once the UI prefix is stripped.
ARTIFACT_PATH = "/artifact.html"


def artifact_content_security_policy(port: int) -> str:
    """The artifact page's own policy, instead of the app's (two policies would both apply, and
    the app's `script-src 'self'` would stop the artifact's inline scripts): inline script and
    style run, nothing loads from anywhere (images and fonts from data: only), only the app's
    own pages may frame it, and `sandbox` gives it an opaque origin even if opened on its own."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'unsafe-inline'",
            "style-src 'unsafe-inline'",
            "img-src data:",
            "font-src data:",
            "media-src data:",
            "base-uri 'none'",
            "form-action 'none'",
            f"frame-ancestors http://127.0.0.1:{port} http://localhost:{port}",
            "sandbox allow-scripts",
        ]
    )


# What an artifact frame may not use, for the browsers that apply these headers (docs/decisions.md
# 290). Connection-Allowlist (Chromium) with an empty list and `webrtc=block`: no connection to
# any host and no RTCPeerConnection, which a Content-Security-Policy does not govern. The
# artifact page takes WebRTC away itself too (frontend/public/artifact.html), for browsers
# without that header.
ARTIFACT_CONNECTION_ALLOWLIST = "();webrtc=block"
# Powerful features a frame could ask for, all off (the frame's `allow` attribute says the same:
# frontend/src/model/sandboxedFrame.ts).
_FEATURES = (
    "camera",
    "microphone",
    "display-capture",
    "geolocation",
    "usb",
    "serial",
    "hid",
    "bluetooth",
    "midi",
    "payment",
    "publickey-credentials-get",
    "clipboard-read",
    "clipboard-write",
)
ARTIFACT_PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in _FEATURES)


# MCP App pages (app/server/app_frames.py): `/mcp-app/<token>` from the server's root.
APP_FRAME_PREFIX = "/mcp-app/"


def app_frame_headers(
    port: int, page_policy: str, *, allow: Sequence[str] = (), network: bool = False
) -> list[tuple[bytes, bytes]]:
    """An MCP App page's headers: the policy its resource declared (`page_policy`, built in
    app/mcp/apps.py from the declared origins only) plus `frame-ancestors` (the app's own
    pages) and `sandbox allow-scripts` (an opaque origin even when opened on its own);
    Connection-Allowlist closed (and WebRTC blocked) when it declared no domain at all
    (`network` False; a declared domain needs it open, WebRTC is then closed by the page's
    prelude); every powerful feature off but the ones the person allowed (`allow`: Permissions
    Policy feature names)."""
    policy = "; ".join(
        [
            page_policy,
            f"frame-ancestors http://127.0.0.1:{port} http://localhost:{port}",
            "sandbox allow-scripts",
        ]
    )
    allowed = set(allow)
    features = ", ".join(
        f"{feature}=(self)" if feature in allowed else f"{feature}=()" for feature in _FEATURES
    )
    headers = [
        (b"content-security-policy", policy.encode("ascii")),
        (b"permissions-policy", features.encode("ascii")),
        (b"x-dns-prefetch-control", b"off"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cache-control", b"no-store"),
    ]
    if not network:
        headers.append((b"connection-allowlist", ARTIFACT_CONNECTION_ALLOWLIST.encode("ascii")))
    return headers


def security_headers(port: int) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", content_security_policy(port).encode("ascii")),
        (b"x-content-type-options", b"nosniff"),
        # Also keeps a token-bearing URL from leaking to anything the page links to.
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]


def artifact_security_headers(port: int) -> list[tuple[bytes, bytes]]:
    """The artifact page's headers: its policy, and no X-Frame-Options (the app frames it)."""
    return [
        (b"content-security-policy", artifact_content_security_policy(port).encode("ascii")),
        (b"connection-allowlist", ARTIFACT_CONNECTION_ALLOWLIST.encode("ascii")),
        (b"permissions-policy", ARTIFACT_PERMISSIONS_POLICY.encode("ascii")),
        (b"x-dns-prefetch-control", b"off"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cache-control", b"no-store"),
    ]

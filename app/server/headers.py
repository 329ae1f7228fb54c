"""Security headers added to every HTTP response (SPEC S13)."""

from __future__ import annotations


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


def security_headers(port: int) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", content_security_policy(port).encode("ascii")),
        (b"x-content-type-options", b"nosniff"),
        # Also keeps a token-bearing URL from leaking to anything the page links to.
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]

"""Small self-contained HTML pages the server answers with when it cannot show the UI.

No scripts (the CSP forbids inline ones anyway); inline styles are allowed by the CSP.
"""

from __future__ import annotations

import html

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;"
    "line-height:1.5;color:#222}code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}"
)


def _page(title: str, *paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def unauthorized_page() -> str:
    return _page(
        "CashCode: open the address printed in the terminal",
        "This page needs the start address that <code>cashcode serve</code> printed when it "
        "started, the one ending in <code>/?token=…</code>.",
        "Each run of <code>cashcode serve</code> makes a new token, so addresses and cookies from "
        "an earlier run no longer work. Close this tab and open the address printed by the "
        "server that is running now.",
    )


def start_used_page() -> str:
    return _page(
        "CashCode: this start address was already used",
        "The address printed by <code>cashcode serve</code> works once, so that a copy of it "
        "(in browser history, a screenshot or another program) cannot open the app later.",
        "If CashCode is already open in a tab, keep using that tab. Otherwise stop the server "
        "(Ctrl+C) and start <code>cashcode serve</code> again for a fresh address.",
    )


def bad_host_page() -> str:
    return _page(
        "CashCode: unexpected host name",
        "This server only answers to <code>127.0.0.1</code> and <code>localhost</code> on its own "
        "port. Open the address printed by <code>cashcode serve</code>.",
    )


def ui_missing_page() -> str:
    return _page(
        "CashCode: the UI has not been built",
        "The server is running, but the web UI files (<code>app/web/index.html</code>) are missing.",
        "Build them from the source tree with <code>python build.py run</code> (or "
        "<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>), then reload "
        "this page.",
    )

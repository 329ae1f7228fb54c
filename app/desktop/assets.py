"""Where the built UI lives, in a source checkout and in a PyInstaller bundle."""

from __future__ import annotations

import html
import sys
from pathlib import Path


def package_root() -> Path:
    """The `app` package folder. PyInstaller unpacks data under `sys._MEIPASS` (tech-notes §4.2)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "app"
    return Path(__file__).resolve().parent.parent


def web_index() -> Path:
    return package_root() / "web" / "index.html"


def app_icon() -> Path | None:
    """The app icon (resources/icons, rendered from cashcode.svg by packaging/make_icons.py) for
    the window, task bar and tray; None if a stripped install lacks it (Qt then draws a mark)."""
    path = package_root().parent / "resources" / "icons" / "cashcode.png"
    return path if path.is_file() else None


def missing_ui_page(index: Path) -> str:
    """Shown instead of a blank window when the frontend was never built."""
    where = html.escape(str(index))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CashCode</title>
<style>
 body {{ font: 15px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: center;
        min-height: 100vh; background: #f6f6f4; color: #222; }}
 main {{ max-width: 36rem; padding: 2rem; }}
 code {{ background: #e9e9e6; padding: .1rem .3rem; border-radius: 3px; }}
</style></head>
<body><main data-testid="missing-ui">
 <h1>CashCode's interface is missing</h1>
 <p>The user interface has not been built, so there is nothing to show.</p>
 <p>Expected file: <code>{where}</code></p>
 <p>From a source checkout, build it with <code>python build.py setup</code>
    (or <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>) and start CashCode again.</p>
</main></body></html>"""


def startup_failed_page(error: BaseException) -> str:
    """Shown when the app itself could not be built (e.g. a damaged settings file)."""
    reason = html.escape(f"{type(error).__name__}: {error}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CashCode</title>
<style>body {{ font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 40rem; color: #222; }}
pre {{ white-space: pre-wrap; background: #f0f0ee; padding: 1rem; border-radius: 4px; }}</style></head>
<body><main data-testid="startup-failed">
 <h1>CashCode could not start</h1>
 <p>Something went wrong while opening your data. Nothing was changed.</p>
 <pre>{reason}</pre>
 <p>Close this window and try again; if it keeps happening, the log folder has details.</p>
</main></body></html>"""

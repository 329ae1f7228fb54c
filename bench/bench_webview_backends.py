"""GTK (system WebKitGTK) against Qt WebEngine on Linux: the same hello-world page
(bench/hello_window.py) on each pywebview backend, under Xvfb.

- Start-up: spawn → the window's `loaded` mark. Idle memory: PSS of the whole process tree
  (WebKit and Chromium both run helper processes) 3 s after `loaded`. Interleaved runs.
- The GTK run uses the system Python with Debian's python3-gi and gir1.2-webkit2-4.1 (the
  way a .deb would depend on them) and pywebview's pure-Python package from the venv.

Run: .venv/bin/python bench/bench_webview_backends.py [--runs 3]
(apt-get install python3-gi gir1.2-webkit2-4.1 libwebkit2gtk-4.1-0 first)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.desktop.harness import launch, wait_for_mark  # noqa: E402
from tests.desktop.procs import session_pss_kib  # noqa: E402
from tests.desktop.xvfb import xvfb  # noqa: E402

HELLO = ROOT / "bench" / "hello_window.py"
SYSTEM_PYTHON = "/usr/bin/python3"
PURE = ("webview", "bottle.py", "proxy_tools", "typing_extensions.py")
IDLE_S = 3.0


def gtk_available() -> str | None:
    probe = "import gi; gi.require_version('WebKit2', '4.1'); from gi.repository import WebKit2"
    if subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True).returncode != 0:
        return "python3-gi / gir1.2-webkit2-4.1 are not installed"
    return None


def pure_path(tmp: Path) -> Path:
    """pywebview and its pure-Python dependencies from the venv, without the venv's binaries."""
    import webview

    site = Path(webview.__file__).resolve().parent.parent
    folder = tmp / "pure"
    folder.mkdir()
    for name in PURE:
        (folder / name).symlink_to(site / name)
    return folder


def measure(argv: list[str], env: dict[str, str], display: str) -> tuple[float, float]:
    app = launch(argv, env, display, cdp=False)
    try:
        visible = wait_for_mark(app, "loaded", timeout_s=60) - app.started_at
        time.sleep(IDLE_S)  # idle memory is measured after the page settled
        pss = session_pss_kib(app.proc.pid) / 1024
    finally:
        app.terminate(timeout_s=30)
        app.leftovers()
    return visible, pss


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if (problem := gtk_available()) is not None:
        print(f"bench_webview_backends: skipped, {problem}")
        return 0
    results: dict[str, list[tuple[float, float]]] = {"qt": [], "gtk": []}
    with xvfb() as display, tempfile.TemporaryDirectory() as tmp:
        runs = {
            "qt": ([sys.executable, str(HELLO)], {"HELLO_GUI": "qt"}),
            "gtk": ([SYSTEM_PYTHON, str(HELLO)],
                    {"HELLO_GUI": "gtk", "PYTHONPATH": str(pure_path(Path(tmp)))}),
        }
        for i in range(args.runs):
            for name in ("qt", "gtk") if i % 2 == 0 else ("gtk", "qt"):
                argv, env = runs[name]
                results[name].append(measure(argv, env, display.name))
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print("| backend | start → loaded (median, min–max) | idle PSS (median, min–max) |")
    print("|---|---|---|")
    for name, values in results.items():
        starts, pss = [v[0] for v in values], [v[1] for v in values]
        print(f"| {name} | {statistics.median(starts):.2f} s ({min(starts):.2f}–{max(starts):.2f}) | "
              f"{statistics.median(pss):.0f} MB ({min(pss):.0f}–{max(pss):.0f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

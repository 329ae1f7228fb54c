"""Desktop presence benchmark: how fast the Quick Ask window appears, and what the tray icon
and the hidden Quick Ask window cost in idle memory. Prints Markdown table rows.

Run from the repo root: .venv/bin/python bench/bench_desktop_presence.py [--runs 30]
Needs Xvfb and a tray host (trayer; `python build.py setup` installs it for tests).

Method
- Quick window visible after the hotkey: the real app runs under a private Xvfb with trayer
  as the tray host. XTEST presses Ctrl+Shift+Space (the global hotkey, grabbed by the app
  through XCB); the clock runs from just before the key press until the X server reports the
  "CashCode Quick Ask" window mapped (polled every ~2 ms over one X connection). The same
  hotkey hides it again between runs. This is the whole path a user's key press takes.
- Quick window visible after `cashcode desktop --quick-ask`: the same, but the trigger is a
  second process started with that command, so it includes that process's Python start-up
  and its hand-over to the running instance (the budget of 150 ms applies to the hotkey/tray
  path; this row is for reference). The second process's own run time is reported too.
- Idle memory: PSS summed over every process of the app's session, IDLE_S after the page
  loaded, (a) with the tray icon and the hidden Quick Ask window, on the trayer display, vs
  (b) without both (`CASHCODE_QUICK_WINDOW=0` on a display without a tray host). Runs
  alternate between (a) and (b).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.desktop.harness import app_dirs_env, desktop_command, launch, wait_for_mark  # noqa: E402
from tests.desktop.procs import session_pss_kib  # noqa: E402
from tests.desktop.x11 import XConnection, selection_owned  # noqa: E402
from tests.desktop.xtest import Input  # noqa: E402
from tests.desktop.xvfb import xvfb  # noqa: E402

IDLE_S = 5.0
QUICK = "CashCode Quick Ask"
POLL_S = 0.002


def wait_until(probe, timeout_s: float = 30.0) -> float:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if probe():
                return time.perf_counter()
        except RuntimeError:  # the X server briefly refused a connection (busy machine)
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        time.sleep(POLL_S)


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def warm_up(user: Input, visible) -> None:  # type: ignore[no-untyped-def]
    """The hotkey is registered once the app is built: press until it answers (bounded), hide."""
    deadline = time.monotonic() + 120
    while True:
        user.key("Control_L", "Shift_L", "space")
        try:
            wait_until(visible, 5)
            break
        except TimeoutError:
            if time.monotonic() > deadline:
                raise
    time.sleep(0.5)
    user.key("Control_L", "Shift_L", "space")
    wait_until(lambda: not visible())
    time.sleep(0.3)


def start_tray_host(display: str) -> subprocess.Popen[bytes]:
    if shutil.which("trayer") is None:
        raise SystemExit("trayer is missing: run `python build.py setup` as root (or apt-get install trayer)")
    host = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "24"],
        env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_until(lambda: selection_owned(display, b"_NET_SYSTEM_TRAY_S0"))
    return host


def quick_rows(display: str, env: dict[str, str], runs: int) -> list[str]:
    app = launch(desktop_command(), env, display, cdp=False)
    try:
        wait_for_mark(app, "loaded", 60)
        time.sleep(IDLE_S)  # the app is built and the hotkey registered
        pid = app.proc.pid
        x = XConnection(display)
        visible = lambda: QUICK in x.titled_windows_of(pid)  # noqa: E731
        hotkey: list[float] = []
        with Input(display) as user:
            warm_up(user, visible)
            for _ in range(runs):
                start = time.perf_counter()
                user.key("Control_L", "Shift_L", "space")
                hotkey.append((wait_until(visible) - start) * 1000)
                time.sleep(0.5)  # past the auto-repeat guard
                user.key("Control_L", "Shift_L", "space")  # toggles it hidden again
                wait_until(lambda: not visible())
                time.sleep(0.3)
        cli: list[float] = []
        exits: list[float] = []
        for _ in range(max(5, runs // 3)):
            start = time.perf_counter()
            second = subprocess.Popen([*desktop_command(), "--quick-ask"], cwd=ROOT, env={**os.environ, **env,
                                      "DISPLAY": display})  # fmt: skip
            cli.append((wait_until(visible) - start) * 1000)
            second.wait(30)
            exits.append((time.perf_counter() - start) * 1000)
            with Input(display) as user:
                user.key("Escape")  # Esc in the quick window hides it
            wait_until(lambda: not visible())
            time.sleep(0.3)
        x.close()
    finally:
        app.terminate()
    return [
        f"| Quick Ask visible after the global hotkey (n={runs}), p50 / p95 | {pct(hotkey, 50):.0f} / "
        f"{pct(hotkey, 95):.0f} ms | p95 ≤ 150 ms |",
        f"| Quick Ask visible after `cashcode desktop --quick-ask` (new process, n={len(cli)}), p50 / p95 "
        f"| {pct(cli, 50):.0f} / {pct(cli, 95):.0f} ms | for reference |",
        f"| a second `cashcode desktop` runs until it exits (n={len(exits)}), p50 / max "
        f"| {pct(exits, 50):.0f} / {max(exits):.0f} ms | ≤ 1 s |",
    ]


def idle_pss(display: str, env: dict[str, str]) -> float:
    app = launch(desktop_command(), env, display, cdp=False)
    try:
        wait_for_mark(app, "loaded", 60)
        time.sleep(IDLE_S)
        return session_pss_kib(app.proc.pid) / 1024
    finally:
        app.terminate()
        app.leftovers()


def memory_rows(tray_display: str, plain_display: str, env: dict[str, str], runs: int) -> list[str]:
    idle_pss(tray_display, env)  # warm-up: first-run work and the OS file cache
    with_presence, without = [], []
    for _ in range(runs):
        with_presence.append(idle_pss(tray_display, env))
        without.append(idle_pss(plain_display, {**env, "CASHCODE_QUICK_WINDOW": "0"}))
    a, b = statistics.median(with_presence), statistics.median(without)
    return [
        f"| idle PSS with tray + hidden Quick Ask vs without (median of {runs}) | {a:.0f} MB vs "
        f"{b:.0f} MB (+{(a / b - 1) * 100:.1f}%) | ≤ +10% |"
    ]


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--mem-runs", type=int, default=3)
    parser.add_argument("--only", choices=("quick", "memory"), action="append")
    args = parser.parse_args()
    parts = args.only or ["quick", "memory"]
    rows = ["| metric | measured | budget |", "|---|---|---|"]
    with xvfb() as tray_display, xvfb() as plain_display, tempfile.TemporaryDirectory() as tmp:
        host = start_tray_host(tray_display.name)
        env = app_dirs_env(Path(tmp) / "cashcode")
        try:
            if "quick" in parts:
                rows += quick_rows(tray_display.name, env, args.runs)
            if "memory" in parts:
                rows += memory_rows(tray_display.name, plain_display.name, env, args.mem_runs)
        finally:
            host.terminate()
            host.wait(10)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

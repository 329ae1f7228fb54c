"""Launch the desktop app (or any pywebview program) under Xvfb and attach Playwright over CDP.

Qt WebEngine exposes the DevTools protocol when `QTWEBENGINE_REMOTE_DEBUGGING=<port>` is set.
Playwright must attach with `no_defaults=True`: its default `Browser.setDownloadBehavior` call
is not implemented by Qt WebEngine ("Browser context management is not supported").
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Error, Page, Playwright

from tests.desktop.procs import wait_for_session_gone
from tests.desktop.x11 import close_windows_of

ROOT = Path(__file__).resolve().parents[2]
QUICK_SUFFIX = "#/quick"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def app_dirs_env(base: Path) -> dict[str, str]:
    """Private data/config/log/cache dirs and a file keyring shared with subprocesses."""
    return {
        "CASHCODE_DATA_DIR": str(base / "data"),
        "CASHCODE_CONFIG_DIR": str(base / "config"),
        "CASHCODE_LOG_DIR": str(base / "log"),
        "CASHCODE_CACHE_DIR": str(base / "cache"),
        "PYTHON_KEYRING_BACKEND": "app.testing.fake_keyring.FileKeyring",
        "CASHCODE_TEST_KEYRING_FILE": str(base / "keyring.json"),
        "CASHCODE_MCP_TEST_SERVERS": "1",
    }


@dataclass
class DesktopProcess:
    proc: subprocess.Popen[str]
    display: str
    cdp_port: int
    started_at: float  # time.time() just before spawning
    marks: dict[str, float] = field(default_factory=dict)  # CASHCODE_MARK name -> epoch s
    output: list[str] = field(default_factory=list)
    browser: Browser | None = None
    page: Page | None = None

    def attach(self, pw: Playwright, timeout_s: float = 30.0) -> Page:
        """Connect over CDP (retrying until the DevTools server is up) and return the app page."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                url = f"http://127.0.0.1:{self.cdp_port}"
                self.browser = pw.chromium.connect_over_cdp(url, no_defaults=True)
                break
            except Error:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"app exited early ({self.proc.returncode}):\n{self.tail()}") from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        # The desktop app has two pages: the main window and the hidden Quick Ask window.
        self.page = self._page_where(lambda url: not url.endswith(QUICK_SUFFIX), deadline)
        return self.page

    def ready_page(self, pw: Playwright, wait_ms: float) -> Page:
        """`attach`, then the main page once its composer is usable, `wait_ms` its default wait."""
        from playwright.sync_api import expect

        page = self.attach(pw)
        page.set_default_timeout(wait_ms)
        expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=wait_ms)
        return page

    def quick_page(self, timeout_s: float = 30.0) -> Page:
        """The Quick Ask window's page (attach first)."""
        return self._page_where(lambda url: url.endswith(QUICK_SUFFIX), time.monotonic() + timeout_s)

    def _page_where(self, wanted: Any, deadline: float) -> Page:
        assert self.browser is not None
        while True:
            pages = [p for c in self.browser.contexts for p in c.pages]
            found = [p for p in pages if wanted(p.url)]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise RuntimeError(f"no such page over CDP; pages: {[p.url for p in pages]}")
            time.sleep(0.05)

    def close_window(self, timeout_s: float = 30.0) -> int:
        """Close the window like its close button does (WM_DELETE_WINDOW), wait for the exit.
        Falls back to SIGTERM (which the app also turns into a window close) if no window shows."""
        self._detach()
        if close_windows_of(self.display, self.proc.pid) == 0:
            self.proc.terminate()
        return self._wait(timeout_s)

    def terminate(self, timeout_s: float = 30.0) -> int:
        """SIGTERM (logout, service managers); the app closes its window and exits."""
        self._detach()
        self.proc.terminate()
        return self._wait(timeout_s)

    def _detach(self) -> None:
        if self.browser is not None:
            try:
                self.browser.close()
            except Error:
                pass
            self.browser = None

    def _wait(self, timeout_s: float) -> int:
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise

    def leftovers(self, timeout_s: float = 10.0) -> list[int]:
        """Processes of the app's session still alive after it exited (should be none)."""
        return wait_for_session_gone(self.proc.pid, timeout_s)

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.output[-lines:])


def launch(
    argv: Sequence[str], env: Mapping[str, str], display: str, *, cdp: bool = True, cwd: Path = ROOT
) -> DesktopProcess:
    """Start a window program in its own session (so its whole process tree can be found), in
    `cwd` (the checkout unless a test needs another current folder)."""
    port = free_port()
    full_env = {**os.environ, **env, "DISPLAY": display, "CASHCODE_STARTUP_MARKS": "1"}
    full_env["QTWEBENGINE_CHROMIUM_FLAGS"] = _with_flag(full_env.get("QTWEBENGINE_CHROMIUM_FLAGS", ""))
    if cdp:
        full_env["QTWEBENGINE_REMOTE_DEBUGGING"] = str(port)
    started = time.time()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    launched = DesktopProcess(proc=proc, display=display, cdp_port=port, started_at=started)
    threading.Thread(target=_read_output, args=(launched,), daemon=True).start()
    return launched


def desktop_command() -> list[str]:
    return [sys.executable, "-m", "app.desktop"]


def wait_until(predicate: Callable[[], object], timeout_s: float = 5.0) -> None:
    """Poll `predicate` until it is truthy; fail the test if it is not within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.005)


def wait_for_mark(launched: DesktopProcess, name: str, timeout_s: float = 30.0) -> float:
    deadline = time.monotonic() + timeout_s
    while name not in launched.marks:
        if launched.proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"no {name} mark; output:\n{launched.tail()}")
        time.sleep(0.01)
    return launched.marks[name]


def _with_flag(flags: str) -> str:
    # Root needs --no-sandbox (the app adds it itself; the hello-world floor does not).
    parts = flags.split()
    if os.geteuid() == 0 and "--no-sandbox" not in parts:
        parts.append("--no-sandbox")
    return " ".join(parts)


def _read_output(launched: DesktopProcess) -> None:
    assert launched.proc.stdout is not None
    for line in launched.proc.stdout:
        line = line.rstrip("\n")
        launched.output.append(line)
        if line.startswith("CASHCODE_MARK "):
            # Other threads' (or Chromium's) output can land on the same line: take 3 fields.
            parts = line.split()
            try:
                launched.marks.setdefault(parts[1], float(parts[2][:17]))
            except (IndexError, ValueError):
                continue


def invoke(page: Page, route: str, payload: Mapping[str, Any] | None = None) -> Any:
    """Call the bridge from inside the page, exactly as the UI does (once pywebview injected it)."""
    page.wait_for_function(
        "() => !!(window.pywebview && window.pywebview.api && window.pywebview.api.invoke)"
    )
    return page.evaluate("([r, p]) => window.pywebview.api.invoke(r, p)", [route, dict(payload or {})])

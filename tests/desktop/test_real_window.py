"""The real desktop shell in a real Qt window under Xvfb, with a stand-in app and a static
page (tests/desktop/static/probe.html) that drives itself and reports back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop.procs import wait_for_session_gone
from tests.desktop.xvfb import XDisplay, xvfb

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.desktop


@pytest.fixture(scope="module")
def display() -> Iterator[XDisplay]:
    with xvfb() as d:
        yield d


@pytest.fixture(scope="module")
def probe_run(display: XDisplay, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    tmp = tmp_path_factory.mktemp("probe")
    report = tmp / "report.json"
    env = {
        **os.environ,
        "DISPLAY": display.name,
        "CASHCODE_DATA_DIR": str(tmp / "data"),
        "CASHCODE_CONFIG_DIR": str(tmp / "config"),
        "CASHCODE_LOG_DIR": str(tmp / "log"),
        "CASHCODE_CACHE_DIR": str(tmp / "cache"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.desktop.window_probe", str(report)],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output, _ = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        pytest.fail(f"the window never closed; output:\n{output[-3000:]}")
    survivors = wait_for_session_gone(proc.pid, timeout_s=10)
    assert report.exists(), f"the page never reported; exit {proc.returncode}; output:\n{output[-3000:]}"
    return {
        "report": json.loads(report.read_text(encoding="utf-8")),
        "returncode": proc.returncode,
        "survivors": survivors,
        "closed": report.with_suffix(".closed").exists(),
        "data_dir": tmp / "data",
        "output": output,
        "log": "\n".join(f.read_text(encoding="utf-8") for f in sorted((tmp / "log").glob("*.log*"))),
    }


def test_the_page_sees_exactly_one_bridge_method_invoke(probe_run: dict) -> None:
    assert probe_run["report"]["publicApi"] == ["invoke"]


def test_a_start_logs_no_eval_refusal_under_the_strict_csp(probe_run: dict) -> None:
    """pywebview builds its `pywebview.api` stubs with `new Function` unless it is given no
    names to build (app/desktop/bridge.py); under `script-src 'self'` that logged an EvalError
    on every page load (issue 41)."""
    assert probe_run["report"]["echo"]["ok"] is True  # the bridge still works
    for text in (str(probe_run["output"]), str(probe_run["log"])):
        assert "EvalError" not in text and "unsafe-eval" not in text, text[-3000:]


def test_a_bridge_call_round_trips_unicode_payloads_and_error_envelopes(probe_run: dict) -> None:
    report = probe_run["report"]
    assert report["echo"] == {"ok": True, "data": {"word": "héllo ✓", "n": [1, 2]}}
    assert report["missing"]["error"]["code"] == "not_found"


def test_pushed_events_reach_the_page_complete_in_order_and_batched(probe_run: dict) -> None:
    report = probe_run["report"]
    assert report["streamComplete"] is True
    assert report["domText"] is True
    assert report["others"] == ["tool_call"]
    assert report["batches"] < 2000  # coalesced, not one call per token


def test_the_folder_picker_route_is_registered_with_the_app(probe_run: dict) -> None:
    assert "desktop.pick_folder" in probe_run["report"]["routes"]


def test_closing_the_window_closes_the_app_and_exits_cleanly(probe_run: dict) -> None:
    assert probe_run["returncode"] == 0
    assert probe_run["closed"] is True
    assert probe_run["survivors"] == []


def test_window_state_and_webview_storage_live_in_the_data_dir(probe_run: dict) -> None:
    data_dir = probe_run["data_dir"]
    assert (data_dir / "window-state.json").is_file()
    assert (data_dir / "webview").is_dir()


def test_a_missing_ui_build_shows_a_readable_error_page_not_a_blank_window(
    display: XDisplay, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    from tests.desktop.harness import app_dirs_env, invoke, launch

    missing = tmp_path / "no-such-build" / "index.html"
    app = launch(
        [sys.executable, "-m", "tests.desktop.missing_ui_probe", str(missing)],
        app_dirs_env(tmp_path),
        display.name,
    )
    try:
        with sync_playwright() as pw:
            page = app.attach(pw)
            page.wait_for_selector("[data-testid=missing-ui]", timeout=30_000)
            body = page.inner_text("body")
            assert "interface is missing" in body
            assert str(missing) in body
            page.wait_for_function("() => window.pywebview && window.pywebview.api", timeout=30_000)
            assert invoke(page, "app.info")["ok"] is True  # the bridge still answers
    finally:
        assert app.close_window() == 0, app.tail()
    assert app.leftovers() == []


def test_the_window_reopens_with_the_remembered_size_and_position(display: XDisplay, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.desktop.harness import app_dirs_env, launch

    env = app_dirs_env(tmp_path)
    state_file = Path(env["CASHCODE_DATA_DIR"]) / "window-state.json"
    state_file.parent.mkdir(parents=True)
    state_file.write_text('{"width": 900, "height": 650, "x": 40, "y": 30, "maximized": false}')
    app = launch(
        [sys.executable, "-m", "tests.desktop.missing_ui_probe", str(tmp_path / "none.html")],
        env,
        display.name,
    )
    try:
        with sync_playwright() as pw:
            page = app.attach(pw)
            page.wait_for_selector("[data-testid=missing-ui]", timeout=30_000)
            size = page.evaluate(
                "() => [window.innerWidth, window.innerHeight, window.screenX, window.screenY]"
            )
    finally:
        assert app.close_window() == 0, app.tail()
    assert size == [900, 650, 40, 30]
    assert json.loads(state_file.read_text())["width"] == 900  # saved again on close


def test_a_moved_and_resized_window_is_remembered_for_the_next_launch(
    display: XDisplay, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    from tests.desktop.harness import app_dirs_env, launch
    from tests.desktop.x11 import move_resize_windows_of

    env = app_dirs_env(tmp_path)
    app = launch(
        [sys.executable, "-m", "tests.desktop.missing_ui_probe", str(tmp_path / "none.html")],
        env,
        display.name,
    )
    try:
        with sync_playwright() as pw:
            page = app.attach(pw)
            page.wait_for_selector("[data-testid=missing-ui]", timeout=30_000)
            assert move_resize_windows_of(display.name, app.proc.pid, 70, 60, 1000, 700) == 1
            page.wait_for_function("() => window.innerWidth === 1000 && window.innerHeight === 700")
            page.wait_for_function("() => window.screenX === 70 && window.screenY === 60")
    finally:
        assert app.close_window() == 0, app.tail()
    saved = json.loads((Path(env["CASHCODE_DATA_DIR"]) / "window-state.json").read_text())
    assert saved == {"width": 1000, "height": 700, "x": 70, "y": 60, "maximized": False}


def test_the_native_folder_dialog_opens_from_the_page_and_a_dismissal_answers_no_path(
    display: XDisplay, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    from tests.desktop.harness import app_dirs_env, launch
    from tests.desktop.x11 import close_windows_of, windows_of

    app = launch([sys.executable, "-m", "tests.desktop.missing_ui_probe", str(tmp_path / "none.html")],
                 app_dirs_env(tmp_path), display.name)  # fmt: skip
    try:
        with sync_playwright() as pw:
            page = app.attach(pw)
            page.wait_for_function(
                "() => !!(window.pywebview && window.pywebview.api && window.pywebview.api.invoke)"
            )
            page.evaluate(
                "() => { window.__pick = 'pending';"
                " window.pywebview.api.invoke('desktop.pick_folder', {}).then(r => { window.__pick = r; }); }"
            )
            deadline = time.monotonic() + 30
            while len(windows := windows_of(display.name, app.proc.pid)) < 2:
                assert time.monotonic() < deadline, "the folder dialog never appeared"
                time.sleep(0.05)
            assert close_windows_of(display.name, app.proc.pid, only=windows[-1]) == 1
            page.wait_for_function("() => window.__pick !== 'pending'")
            assert page.evaluate("() => window.__pick") == {"ok": True, "data": {"path": None}}
    finally:
        assert app.close_window() == 0, app.tail()

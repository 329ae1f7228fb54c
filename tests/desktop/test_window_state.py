from __future__ import annotations

from pathlib import Path

from app.desktop.window_state import (
    WindowState,
    WindowStateTracker,
    load_window_state,
    save_window_state,
)


def test_saved_state_is_loaded_back(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "window-state.json"
    state = WindowState(width=1000, height=700, x=10, y=20, maximized=True)
    save_window_state(path, state)
    assert load_window_state(path) == state


def test_missing_or_corrupt_files_give_defaults(tmp_path: Path) -> None:
    assert load_window_state(tmp_path / "nope.json") == WindowState()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert load_window_state(bad) == WindowState()
    bad.write_text("[1, 2]", encoding="utf-8")
    assert load_window_state(bad) == WindowState()


def test_silly_values_are_clamped_and_offscreen_positions_dropped(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text('{"width": 5, "height": 99999, "x": 50000, "y": 3, "maximized": "yes"}', encoding="utf-8")
    assert load_window_state(path) == WindowState(width=640, height=16384, x=None, y=None, maximized=False)


def test_tracker_follows_resize_and_move_but_keeps_the_restored_size_while_maximised() -> None:
    tracker = WindowStateTracker(WindowState())
    tracker._on_resized(900, 600)
    tracker._on_moved(5, 6)
    tracker._on_maximized()
    tracker._on_resized(1920, 1080)
    tracker._on_moved(0, 0)
    assert tracker.snapshot() == WindowState(width=900, height=600, x=5, y=6, maximized=True)
    tracker._on_restored()
    assert tracker.snapshot().maximized is False


def test_the_quick_window_has_its_own_defaults_and_smaller_minimum(tmp_path: Path) -> None:
    from app.desktop.windows import QUICK_DEFAULT, QUICK_MIN_SIZE

    missing = tmp_path / "quick-window-state.json"
    assert load_window_state(missing, QUICK_DEFAULT, QUICK_MIN_SIZE) == QUICK_DEFAULT
    missing.write_text('{"width": 500, "height": 300, "x": 10, "y": 20}')
    state = load_window_state(missing, QUICK_DEFAULT, QUICK_MIN_SIZE)
    assert (state.width, state.height, state.x, state.y) == (500, 300, 10, 20)  # main's minimum would clamp

"""Freshness while `cashcode serve` runs: a change made while the app was closed is caught by
the start-up scan; a saved, a deleted and a renamed file show in `cashcode kb search` soon
after (polled with a generous bound: this checks that it happens, not how fast)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode
from tests.knowledge.consistency import check_consistent
from tests.knowledge.corpus import build
from tests.server.process import isolated_env, serve_process

BOUND_S = 60.0  # generous: the machine may be busy; this is a hang check, not a speed test


def _search(env: dict[str, str], cwd: Path, query: str) -> list[dict[str, Any]]:
    done = cashcode("kb", "search", query, "--json", env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    hits: list[dict[str, Any]] = json.loads(done.stdout)
    return hits


def _until(
    env: dict[str, str], cwd: Path, query: str, ok: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    deadline = time.monotonic() + BOUND_S
    while True:
        hits = _search(env, cwd, query)
        if ok(hits) or time.monotonic() > deadline:
            return hits
        time.sleep(0.2)


def test_edits_deletes_and_renames_are_reflected_while_serve_runs(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    root = build(tmp_path / "docs")
    assert cashcode("kb", "add", str(root), env=env, cwd=tmp_path).returncode == 0
    single = tmp_path / "single.md"
    single.write_text("# Single\n\nplain text\n", encoding="utf-8")
    assert cashcode("kb", "add", str(single), "--name", "One", env=env, cwd=tmp_path).returncode == 0
    # Changed while the app is closed: the start-up quick scan finds it.
    (root / "page.html").write_text("<p>closed-time persimmon</p>\n", encoding="utf-8")

    with serve_process(["--no-open", "--port", "0"], env):
        hits = _until(env, tmp_path, "persimmon", lambda h: bool(h))
        assert [(h["path"], h["start_line"]) for h in hits] == [(str(root / "page.html"), 1)]

        guide = root / "guide.md"
        guide.write_text(
            guide.read_text(encoding="utf-8") + "\n## Uninstall\n\nUse the zapper tool.\n", encoding="utf-8"
        )
        hits = _until(env, tmp_path, "zapper", lambda h: bool(h))
        assert [(h["path"], h["start_line"], h["end_line"]) for h in hits] == [(str(guide), 19, 21)]

        (root / "notes-zh.txt").unlink()
        assert _until(env, tmp_path, "离线搜索", lambda h: not h) == []

        old, new = root / "src" / "config.py", root / "src" / "settings_loader.py"
        old.rename(new)
        hits = _until(env, tmp_path, "zanzibar", lambda h: [x["path"] for x in h] == [str(new)])
        assert [(h["path"], h["start_line"], h["end_line"]) for h in hits] == [(str(new), 1, 10)]

        # A single-file root saved the way editors do: a copy renamed over it (a new inode).
        copy = tmp_path / ".single.md.tmp"
        copy.write_text("# Single\n\nnow about kiwifruit\n", encoding="utf-8")
        os.replace(copy, single)
        hits = _until(env, tmp_path, "kiwifruit", lambda h: bool(h))
        assert [(h["path"], h["start_line"], h["end_line"]) for h in hits] == [(str(single), 1, 3)]

    assert check_consistent(tmp_path / "data" / "cashcode.sqlite3") == 6

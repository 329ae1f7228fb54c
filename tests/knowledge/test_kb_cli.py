"""`cashcode kb …` in real subprocesses: the exact syntax and JSON shape, errors, and a kill -9
in the middle of indexing (the index stays consistent, and the next run resumes)."""

from __future__ import annotations

import json
import os
import pty
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import base_env, cashcode
from tests.knowledge.consistency import check_consistent
from tests.knowledge.corpus import build
from tests.server.process import isolated_env, serve_process


@pytest.fixture
def plain_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "ws").mkdir()
    return base_env(tmp_path)


def test_add_list_search_reindex_remove(plain_env: dict[str, str], tmp_path: Path) -> None:
    root = build(tmp_path / "docs")
    added = cashcode("kb", "add", "docs", "--name", "Docs", env=plain_env, cwd=tmp_path)  # relative to cwd
    assert added.returncode == 0, added.stderr
    assert "Docs: 6 file(s) indexed, 0 unchanged, 0 removed, 7 skipped" in added.stdout
    assert "\x1b" not in added.stderr  # no terminal: no progress bar

    listed = json.loads(cashcode("kb", "list", "--json", env=plain_env, cwd=tmp_path).stdout)
    assert [(b["name"], b["roots"], b["files"], b["skipped"], b["pending"]) for b in listed] == [
        ("Docs", [str(root)], 6, 7, False)
    ]
    found = cashcode("kb", "search", "install quietly", "--limit", "1", "--json", env=plain_env, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == [
        {
            "path": str(root / "guide.md"),
            "start_line": 5,
            "end_line": 8,
            "score": json.loads(found.stdout)[0]["score"],
            "text": "## Install\n\nRun the installer with the flag --quiet to install silently.\n"
            "The frobnicator needs Python.",
        }
    ]
    assert json.loads(found.stdout)[0]["score"] > 0
    text = cashcode("kb", "search", "离线搜索", "--kb", "Docs", env=plain_env, cwd=tmp_path)
    assert text.stdout.startswith(f"{root}/notes-zh.txt:1-5  ")

    again = cashcode("kb", "reindex", "Docs", env=plain_env, cwd=tmp_path)
    assert again.returncode == 0 and "Docs: 6 file(s) indexed" in again.stdout
    assert cashcode("kb", "remove", "Docs", env=plain_env, cwd=tmp_path).returncode == 0
    assert json.loads(cashcode("kb", "list", "--json", env=plain_env, cwd=tmp_path).stdout) == []
    assert (root / "guide.md").exists()  # the user's files are never touched


def test_errors_exit_1_with_one_line(plain_env: dict[str, str], tmp_path: Path) -> None:
    missing = cashcode("kb", "add", str(tmp_path / "nope"), env=plain_env, cwd=tmp_path)
    assert (
        missing.returncode == 1
        and missing.stderr.startswith("cashcode: error: ")
        and "does not exist" in missing.stderr
    )
    for args in (("remove", "Nope"), ("reindex", "Nope"), ("search", "x", "--kb", "Nope")):
        failed = cashcode("kb", *args, env=plain_env, cwd=tmp_path)
        assert failed.returncode == 1 and "No knowledge base named 'Nope'" in failed.stderr, args
    bad = cashcode("kb", "search", "x", "--limit", "0", env=plain_env, cwd=tmp_path)
    assert bad.returncode == 1 and bad.stderr.startswith("cashcode: error: ")
    assert json.loads(cashcode("kb", "list", "--json", env=plain_env, cwd=tmp_path).stdout) == []


def _indexed(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM kb_files").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # not created or not migrated yet


TOTAL = 1500


def _workers_of(env: dict[str, str]) -> list[int]:
    """Index worker processes started with this test's data folder."""
    mark = f"CASHCODE_DATA_DIR={env['CASHCODE_DATA_DIR']}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if b"app.knowledge.worker" in (proc / "cmdline").read_bytes() and mark in (
                proc / "environ"
            ).read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return found


def _killed_mid_index(env: dict[str, str], tmp_path: Path) -> tuple[Path, Path, int]:
    """`kb add` of a 1,500-file folder, killed with SIGKILL once some files are committed."""
    root = tmp_path / "many"
    root.mkdir()
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n\n"
    for n in range(TOTAL):
        (root / f"note{n:04d}.md").write_text(
            f"# Note {n}\n\n" + para * 120 + f"unique{n}\n", encoding="utf-8"
        )
    db = Path(env["CASHCODE_DATA_DIR"]) / "cashcode.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "kb", "add", str(root)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while _indexed(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _workers_of(env), "a run this size reads its files in worker processes"
    proc.kill()  # SIGKILL
    proc.wait(timeout=30)
    # Its worker processes (app/knowledge/pool.py) see their input close and end too.
    deadline = time.monotonic() + 30
    while (left := _workers_of(env)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []
    before = _indexed(db)
    assert 0 < before < TOTAL, "the run ended before it could be killed; make the corpus larger"
    assert check_consistent(db) == before
    listed = json.loads(cashcode("kb", "list", "--json", env=env, cwd=tmp_path).stdout)
    assert [(b["name"], b["pending"], b["files"]) for b in listed] == [("many", True, before)]
    return root, db, before


def test_kill_9_while_indexing_leaves_a_consistent_index_and_the_next_run_resumes(
    plain_env: dict[str, str], tmp_path: Path
) -> None:
    root, db, before = _killed_mid_index(plain_env, tmp_path)
    resumed = cashcode("kb", "add", str(root), env=plain_env, cwd=tmp_path, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    counts = re.search(r"(\d+) file\(s\) indexed, (\d+) unchanged", resumed.stdout)
    assert counts is not None and (int(counts[1]), int(counts[2])) == (TOTAL - before, before)
    assert check_consistent(db) == TOTAL
    listed = json.loads(cashcode("kb", "list", "--json", env=plain_env, cwd=tmp_path).stdout)
    assert [(b["pending"], b["files"]) for b in listed] == [(False, TOTAL)]


def test_after_kill_9_starting_serve_resumes_the_run(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    _root, db, _before = _killed_mid_index(env, tmp_path)
    with serve_process(["--no-open", "--port", "0"], env):
        deadline = time.monotonic() + 120
        listed: list[dict[str, object]] = []
        while time.monotonic() < deadline:
            listed = json.loads(cashcode("kb", "list", "--json", env=env, cwd=tmp_path).stdout)
            if listed and listed[0]["pending"] is False:
                break
            time.sleep(0.5)
        assert [(b["pending"], b["files"]) for b in listed] == [(False, TOTAL)]
    assert check_consistent(db) == TOTAL


def test_kb_add_draws_a_progress_bar_on_a_terminal(plain_env: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(3):
        (root / f"n{n}.md").write_text(f"# N{n}\n\ntext {n}\n", encoding="utf-8")
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "app", "kb", "add", str(root)],
            env=plain_env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
            timeout=60,
        )
        os.close(slave)
        slave = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert done.returncode == 0 and "3 file(s) indexed" in done.stdout
    text = drawn.decode()
    assert "] 0/3 n0.md" in text and "] 2/3 n2.md" in text and text.endswith("\r\x1b[2K")

"""Start-up memory helpers: the Chromium flags for Qt WebEngine and the heap trim after start-up."""

from __future__ import annotations

import sys
import threading

import pytest

from app.desktop.heap_trim import trim_heap, trim_when_settled
from app.desktop.qt_setup import FLAGS_VAR, SHARED_RENDERER_FLAG, prepare_qt_environment
from app.desktop.webrtc_off import WEBRTC_FLAG

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt flags are for Linux")


@linux_only
def test_the_shared_renderer_flag_is_added_to_the_users_own_flags_once() -> None:
    env = {FLAGS_VAR: "--enable-logging --v=1"}
    prepare_qt_environment(env, is_root=False)
    prepare_qt_environment(env, is_root=False)  # idempotent
    assert env[FLAGS_VAR].split() == ["--enable-logging", "--v=1", SHARED_RENDERER_FLAG, WEBRTC_FLAG]


@linux_only
def test_no_sandbox_is_added_only_for_root() -> None:
    user: dict[str, str] = {}
    prepare_qt_environment(user, is_root=False)
    assert "--no-sandbox" not in user[FLAGS_VAR].split()
    root = {FLAGS_VAR: "--no-sandbox"}
    prepare_qt_environment(root, is_root=True)
    assert root[FLAGS_VAR].split() == ["--no-sandbox", SHARED_RENDERER_FLAG, WEBRTC_FLAG]


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_trim_returns_freed_heap_memory_to_the_os() -> None:
    # 60 MB in 4 KiB blocks (malloc'd on the heap, not mmap'd), then every block but one in 64
    # freed: the free space is in the middle of the heap, where free() itself never gives it back.
    blocks = [bytearray(4096) for _ in range(15_000)]
    kept = blocks[::64]
    del blocks
    before = _rss_kib()
    assert trim_heap() is True
    after = _rss_kib()
    assert before - after > 20_000, (before, after)
    assert len(kept) > 0


def test_the_trim_runs_once_after_every_start_up_step() -> None:
    steps = [threading.Event(), threading.Event()]
    trimmed = threading.Event()

    def trim() -> bool:
        assert all(step.is_set() for step in steps)
        trimmed.set()
        return True

    thread = trim_when_settled([step.wait for step in steps], trim, settle_s=0.0)
    steps[1].set()
    assert not trimmed.wait(0.2)  # the first step (the app) is not done yet
    steps[0].set()
    thread.join(10)
    assert trimmed.is_set()

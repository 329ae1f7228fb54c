"""The cyclic collector is paused while `cashcode ask` starts (app/cli/startup_gc.py): without
the pause one `ask` ran ~210 collections over objects that live until exit."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli.startup_gc import StartupGc

# Counts the collections of the whole run and checks the collector is on again at the end.
COUNTING_MAIN = """
import atexit, gc, sys
runs = []
gc.callbacks.append(lambda phase, info: runs.append(1) if phase == "stop" else None)
atexit.register(lambda: print(f"collections={len(runs)} enabled={gc.isenabled()}", file=sys.stderr))
sys.argv = ["cashcode", "ask", "hi"]
from app.cli.main import main
raise SystemExit(main())
"""


@pytest.fixture
def collector() -> Iterator[None]:
    yield
    gc.unfreeze()
    gc.enable()


def test_pause_then_resume_freezes_start_up_objects(collector: None) -> None:
    startup = StartupGc()
    startup.pause()
    assert startup.paused and not gc.isenabled()
    startup.resume()
    assert not startup.paused and gc.isenabled()
    assert gc.get_freeze_count() > 0  # start-up objects moved out of the collector's sight


def test_resume_without_pause_changes_nothing(collector: None) -> None:
    gc.disable()  # e.g. an embedding process that manages the collector itself
    StartupGc().resume()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_ask_starts_without_collections_and_ends_with_the_collector_on(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": "ok"})
    command = [sys.executable, "-c", COUNTING_MAIN]
    result = subprocess.run(command, env=env, cwd=home / "ws", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"
    line = result.stderr.strip().splitlines()[-1]
    count = int(line.split()[0].split("=")[1])
    assert count < 20, line  # ~210 with the collector running through start-up
    assert line.endswith("enabled=True")

"""`cashcode sessions list` prints a page (newest 50 by default), `--limit N`, `--all`."""

from __future__ import annotations

from pathlib import Path

from app.api.plugins import open_database
from app.settings.paths import AppPaths
from app.store.chats import ChatRepository
from tests.cli.conftest import base_env, cashcode


def _seed(home: Path, count: int) -> list[str]:
    paths = AppPaths.from_env(base_env(home)).ensure()
    with open_database(paths.db_path) as db:
        chats = ChatRepository(db)
        return [chats.create(f"chat number {i}").id for i in range(count)]


def _listed_ids(stdout: str) -> list[str]:
    return [line.split()[0] for line in stdout.splitlines() if line.strip()]


def test_default_limit_and_all_page_through_every_chat(home: Path) -> None:
    made = _seed(home, 620)  # more than one 500-chat page of `chats.list`
    newest_first = list(reversed(made))
    env = base_env(home)
    default = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert default.returncode == 0, default.stderr
    assert _listed_ids(default.stdout) == newest_first[:50]
    assert "--all" in default.stderr  # says how to see more
    limited = cashcode("sessions", "list", "--limit", "7", env=env, cwd=home / "ws")
    assert _listed_ids(limited.stdout) == newest_first[:7]
    everything = cashcode("sessions", "list", "--all", env=env, cwd=home / "ws")
    assert everything.returncode == 0, everything.stderr
    assert _listed_ids(everything.stdout) == newest_first and everything.stderr == ""


def test_a_bad_limit_is_refused_plainly(home: Path) -> None:
    _seed(home, 1)
    bad = cashcode("sessions", "list", "--limit", "0", env=base_env(home), cwd=home / "ws")
    assert bad.returncode == 2 and "at least 1" in bad.stderr

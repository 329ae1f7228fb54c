"""SIGKILL during publish, replace, delete or rollback leaves the old or the new version,
never a mix (checked after the next store start-up, which runs recovery)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.skills.sources import SkillDataPaths

from .helpers import REPO, make_env, skill_md, tree_digest, write_skill, zip_folder

OLD_FILES = {f"data/old{i}.bin": os.urandom(20_000) for i in range(30)}
NEW_FILES = {f"data/new{i}.bin": os.urandom(20_000) for i in range(30)}


def run_until(base: Path, op: str, step: str, arg: str = "") -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.skills.crash_worker", str(base), op, step, arg],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.startswith("PAUSED"):
        child.kill()
        _, err = child.communicate()
        pytest.fail(f"worker did not reach {step}: {line!r} {err[-2000:]}")
    return child


def kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL


def prepare_rollback(base: Path) -> tuple[str, dict[str, str], dict[str, str]]:
    """Live version L (edited on disk) and a snapshot S that differ in many files."""
    env = make_env(base)
    folder = write_skill(env.roots.user, "demo", skill_md("demo", description="Snapshot."), NEW_FILES)
    snapshot_digest = tree_digest(folder)
    env.store.replace("demo", skill_md("demo", description="Live."), env.store.read("demo").sha256)
    for rel in NEW_FILES:
        (folder / rel).unlink()
    for rel, data in OLD_FILES.items():
        (folder / rel).write_bytes(data)
    return env.store.versions("demo")[0].version_id, tree_digest(folder), snapshot_digest


def state_after_recovery(base: Path) -> dict[str, str] | None:
    env = make_env(base)  # a new store: recovery runs in its constructor
    folder = env.roots.user / "demo"
    leftovers = [p.name for p in env.roots.user.iterdir() if p.name.startswith(".")]
    assert leftovers == [], leftovers
    return tree_digest(folder) if folder.exists() else None


@pytest.mark.parametrize(
    ("step", "expect"),
    [
        ("rollback:staged", "old"),
        ("swap:before-old-rename", "old"),
        ("swap:between-renames", "old"),
        ("swap:after-renames", "new"),
    ],
)
def test_a_rollback_killed_at_any_step_leaves_old_or_new_never_a_mix(
    tmp_path: Path, step: str, expect: str
) -> None:
    version, live, snapshot = prepare_rollback(tmp_path)
    kill(run_until(tmp_path, "rollback", step, version))
    assert state_after_recovery(tmp_path) == (live if expect == "old" else snapshot)


def test_rollbacks_killed_at_random_moments_always_leave_a_whole_version(tmp_path: Path) -> None:
    version, live, snapshot = prepare_rollback(tmp_path)
    make_env(tmp_path).store.rollback("demo", version)  # now there are two versions to flip between
    env = make_env(tmp_path)
    allowed = {tuple(sorted(tree_digest(v.path).items())) for v in env.store.versions("demo")[:2]}
    rng = random.Random(1234)
    for _ in range(6):
        child = run_until(tmp_path, "rollback-loop", "loop")
        try:
            child.wait(timeout=rng.uniform(0.05, 0.6))
        except subprocess.TimeoutExpired:
            pass
        kill(child)
        state = state_after_recovery(tmp_path)
        assert state is not None and tuple(sorted(state.items())) in allowed


@pytest.mark.parametrize(
    ("step", "expect"),
    [
        ("import:extracted", "absent"),
        ("install:validated", "absent"),
        ("publish:before-rename", "absent"),
        ("publish:after-rename", "new"),
    ],
)
def test_an_import_killed_at_any_step_publishes_all_or_nothing(
    tmp_path: Path, step: str, expect: str
) -> None:
    source = write_skill(tmp_path / "src", "demo", files=NEW_FILES)
    archive = zip_folder(source, tmp_path / "demo.zip", prefix="demo")
    make_env(tmp_path / "app").roots.user.mkdir(parents=True)
    kill(run_until(tmp_path / "app", "import", step, str(archive)))
    state = state_after_recovery(tmp_path / "app")
    assert state == (None if expect == "absent" else tree_digest(source))


@pytest.mark.parametrize(
    ("step", "expect"), [("replace:after-snapshot", "old"), ("replace:after-write", "new")]
)
def test_a_replace_killed_at_any_step_leaves_old_or_new(tmp_path: Path, step: str, expect: str) -> None:
    env = make_env(tmp_path)
    folder = write_skill(env.roots.user, "demo", files=OLD_FILES)
    old = tree_digest(folder)
    kill(run_until(tmp_path, "replace", step, env.store.read("demo").sha256))
    state = state_after_recovery(tmp_path)
    assert state is not None
    if expect == "old":
        assert state == old
    else:
        assert state == {**old, "SKILL.md": tree_digest(folder)["SKILL.md"]} and state != old


def test_a_delete_killed_after_hiding_the_folder_completes_on_recovery(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    write_skill(env.roots.user, "demo", files=OLD_FILES)
    kill(run_until(tmp_path, "delete", "delete:after-rename"))
    assert state_after_recovery(tmp_path) is None
    assert [v.reason for v in make_env(tmp_path).store.versions("demo")] == ["delete"]


def test_the_next_start_removes_the_staging_folders_of_killed_imports(tmp_path: Path) -> None:
    """Issue 24 item 1: killed imports left `.staging/.work-*` that no later run cleaned (they
    were removed only after an hour). Now a work folder whose owner died goes at the next start;
    one whose owner still runs is kept."""
    source = write_skill(tmp_path / "src", "demo", files=NEW_FILES)
    archive = zip_folder(source, tmp_path / "demo.zip", prefix="demo")
    make_env(tmp_path / "app").roots.user.mkdir(parents=True)
    for _ in range(3):
        kill(run_until(tmp_path / "app", "import", "import:extracted", str(archive)))
    staging = SkillDataPaths.from_data_dir(tmp_path / "app" / "data").staging
    # Each run's start-up removed the folder of the run killed before it: one is left.
    assert len([p for p in staging.iterdir() if p.is_dir()]) == 1
    running = run_until(tmp_path / "app", "import", "import:extracted", str(archive))
    try:
        make_env(tmp_path / "app")  # a second start-up, while one import is alive
        left = [p for p in staging.iterdir() if p.is_dir()] if staging.exists() else []
        assert len(left) == 1, left  # only the live import's folder
    finally:
        kill(running)
    make_env(tmp_path / "app")
    assert not staging.exists() or not any(staging.iterdir())

"""SkillStore: hash-checked edits, versions, rollback, delete, read-only sources, concurrency."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from app.skills.model import SkillConflict, SkillInvalid, SkillNotFound, SkillReadOnly
from app.skills.snapshots import is_version_id

from .helpers import Env, make_env, skill_md, tree_digest, write_skill, zip_folder

BINARY = {
    "assets/logo.png": bytes(range(256)) * 40,
    "fonts/a.ttf": os.urandom(5000),
    "scripts/run.py": b"print(1)\n",
}


def user_skill(env: Env, name: str = "demo") -> Path:
    return write_skill(env.roots.user, name, files=BINARY)


def edited(name: str = "demo", n: int = 1) -> str:
    return skill_md(name, description=f"Edited {n}.", body=f"# Edit {n}\n\nNew steps.\n")


def test_read_returns_the_full_text_and_the_sha256_of_its_bytes(env: Env) -> None:
    folder = user_skill(env)
    text = env.store.read("demo")
    raw = (folder / "SKILL.md").read_bytes()
    assert text.content == raw.decode() and text.sha256 == hashlib.sha256(raw).hexdigest()
    assert text.source == "user"


def test_replace_with_the_current_hash_writes_and_snapshots_the_old_version(env: Env) -> None:
    folder = user_skill(env)
    before = tree_digest(folder)
    base = env.store.read("demo")
    result = env.store.replace("demo", edited(), base.sha256)
    assert (folder / "SKILL.md").read_text() == edited()
    assert result.sha256 == hashlib.sha256(edited().encode()).hexdigest()
    versions = env.store.versions("demo")
    assert (
        len(versions) == 1 and versions[0].reason == "replace" and versions[0].skill_md_sha256 == base.sha256
    )
    assert is_version_id(versions[0].version_id)
    assert tree_digest(versions[0].path) == before
    assert versions[0].path == env.paths.snapshots / "user" / "demo" / versions[0].version_id
    after = tree_digest(folder)
    assert {k: v for k, v in after.items() if k != "SKILL.md"} == {
        k: v for k, v in before.items() if k != "SKILL.md"
    }
    entry = env.catalog.current.get("demo")
    assert entry is not None and entry.sha256 == result.sha256


def test_replace_with_a_stale_hash_is_a_conflict_and_writes_nothing(env: Env) -> None:
    folder = user_skill(env)
    base = env.store.read("demo")
    env.store.replace("demo", edited(n=1), base.sha256)
    with pytest.raises(SkillConflict):
        env.store.replace("demo", edited(n=2), base.sha256)
    assert (folder / "SKILL.md").read_text() == edited(n=1)
    assert len(env.store.versions("demo")) == 1


def test_replace_with_invalid_content_is_refused_before_anything_is_written(env: Env) -> None:
    folder = user_skill(env)
    base = env.store.read("demo")
    for bad in (skill_md("demo", body=""), skill_md("renamed"), "---\nname: demo\nname: demo\n---\nx\n"):
        with pytest.raises(SkillInvalid):
            env.store.replace("demo", bad, base.sha256)
    assert (folder / "SKILL.md").read_text() == base.content
    assert env.store.versions("demo") == []


def test_builtin_and_external_skills_are_read_only(env: Env) -> None:
    write_skill(env.builtin, "shipped")
    write_skill(env.home / ".claude" / "skills", "outside")
    for name in ("shipped", "outside"):
        base = env.store.read(name)
        with pytest.raises(SkillReadOnly):
            env.store.replace(name, edited(name), base.sha256)
        with pytest.raises(SkillReadOnly):
            env.store.delete(name)
        with pytest.raises(SkillReadOnly):
            env.store.versions(name)
    assert (env.builtin / "shipped" / "SKILL.md").read_text() == skill_md("shipped")


def test_unknown_names_are_not_found(env: Env) -> None:
    for call in (
        lambda: env.store.read("nope"),
        lambda: env.store.delete("nope"),
        lambda: env.store.versions("nope"),
        lambda: env.store.set_enabled("nope", False),
        lambda: env.store.rollback("nope", "x"),
    ):
        with pytest.raises(SkillNotFound):
            call()


def test_import_of_a_name_that_exists_in_any_source_is_a_conflict_never_an_overwrite(
    tmp_path: Path, env: Env
) -> None:
    write_skill(env.builtin, "pdf")
    write_skill(env.roots.agent, "notes")
    (env.roots.user / "broken").mkdir(parents=True)  # an invalid folder still owns its name
    for name in ("pdf", "notes", "broken"):
        src = write_skill(tmp_path / "src", name, skill_md(name, description="Imported."))
        with pytest.raises(SkillConflict):
            env.store.import_zip(zip_folder(src, tmp_path / f"{name}.zip", prefix=name))
    assert not (env.roots.user / "pdf").exists() and not (env.roots.user / "notes").exists()
    assert list((env.roots.user / "broken").iterdir()) == []


def test_rollback_restores_a_version_exactly_and_snapshots_the_current_one(env: Env) -> None:
    folder = user_skill(env)
    original = tree_digest(folder)
    env.store.replace("demo", edited(n=1), env.store.read("demo").sha256)
    env.store.replace("demo", edited(n=2), env.store.read("demo").sha256)
    oldest = env.store.versions("demo")[-1]
    restored = env.store.rollback("demo", oldest.version_id)
    assert tree_digest(folder) == original
    assert restored.content == skill_md("demo")
    versions = env.store.versions("demo")
    assert [v.reason for v in versions] == ["rollback", "replace", "replace"]
    assert (tree_digest(versions[0].path))["SKILL.md"] == hashlib.sha256(edited(n=2).encode()).hexdigest()
    assert not [p for p in env.roots.user.iterdir() if p.name.startswith(".")]


def test_rollback_to_an_unknown_version_is_not_found(env: Env) -> None:
    user_skill(env)
    with pytest.raises(SkillNotFound):
        env.store.rollback("demo", "20240101T000000000000Z-abcdef")
    with pytest.raises(SkillNotFound):
        env.store.rollback("demo", "../../etc")


def test_delete_snapshots_first_and_rollback_brings_the_skill_back(env: Env) -> None:
    folder = user_skill(env)
    original = tree_digest(folder)
    version = env.store.delete("demo")
    assert not folder.exists() and env.catalog.current.get("demo") is None
    assert version.reason == "delete"
    assert [v.version_id for v in env.store.versions("demo")] == [version.version_id]
    env.store.rollback("demo", version.version_id)
    assert tree_digest(folder) == original


def test_deleting_an_invalid_package_moves_it_to_the_invalid_snapshots(env: Env) -> None:
    broken = write_skill(env.roots.user, "broken", skill_md("broken", body=""), files=BINARY)
    content = tree_digest(broken)
    moved = env.store.delete_invalid("user", "broken")
    assert not broken.exists()
    assert moved.parent == env.paths.snapshots / "invalid" / "user" and moved.name.startswith("broken-")
    assert tree_digest(moved) == content
    assert env.catalog.current.diagnostics == ()


def test_deleting_an_invalid_package_rechecks_that_it_is_still_invalid(env: Env) -> None:
    write_skill(env.roots.user, "fixed")
    with pytest.raises(SkillConflict):
        env.store.delete_invalid("user", "fixed")
    assert (env.roots.user / "fixed" / "SKILL.md").exists()
    with pytest.raises(SkillNotFound):
        env.store.delete_invalid("user", "../user")
    with pytest.raises(SkillReadOnly):
        env.store.delete_invalid("builtin", "fixed")


def race_two_replaces(env: Env, base: str, first: int, second: int) -> list[str]:
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def attempt(n: int) -> None:
        barrier.wait()
        try:
            env.store.replace("demo", edited(n=n), base)
            outcomes.append(f"won:{n}")
        except SkillConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=attempt, args=(n,)) for n in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_two_concurrent_replaces_with_the_same_base_hash_one_wins_one_conflicts(env: Env) -> None:
    user_skill(env)
    for round_ in range(10):
        outcomes = race_two_replaces(env, env.store.read("demo").sha256, round_ * 10 + 1, round_ * 10 + 2)
        assert sorted(o.split(":")[0] for o in outcomes) == ["conflict", "won"]
        winner = int(next(o for o in outcomes if o.startswith("won")).split(":")[1])
        assert env.store.read("demo").content == edited(n=winner)
    assert len(env.store.versions("demo")) == 10


def test_imported_skill_binary_files_survive_replace_rollback_and_export(tmp_path: Path, env: Env) -> None:
    src = write_skill(tmp_path / "src", "demo", files=BINARY)
    env.store.import_zip(zip_folder(src, tmp_path / "d.zip", prefix="demo"))
    env.store.replace("demo", edited(), env.store.read("demo").sha256)
    env.store.rollback("demo", env.store.versions("demo")[0].version_id)
    assert tree_digest(env.roots.user / "demo") == tree_digest(src)


def test_start_up_sweeps_stale_staging_folders_but_keeps_recent_ones(tmp_path: Path, env: Env) -> None:
    stale = env.paths.staging / ".work-stale"
    recent = env.paths.staging / ".work-recent"
    for folder in (stale, recent):
        (folder / "package").mkdir(parents=True)
    os.utime(stale, (1, 1))
    make_env(tmp_path)  # a new store instance runs recovery
    assert not stale.exists() and recent.exists()


def test_start_up_brings_back_a_skill_whose_swap_stopped_half_way(tmp_path: Path, env: Env) -> None:
    folder = user_skill(env)
    content = tree_digest(folder)
    os.rename(folder, env.roots.user / ".demo.old-0123abcd")  # state between the two renames
    (env.roots.user / ".demo.rollback-89abcdef").mkdir()  # an unpublished copy
    (env.roots.user / ".keep-me").mkdir()  # the user's own hidden folder is not ours to touch
    make_env(tmp_path)
    assert tree_digest(folder) == content
    assert sorted(p.name for p in env.roots.user.iterdir()) == [".keep-me", "demo"]


def test_only_the_newest_versions_are_kept(tmp_path: Path) -> None:
    from app.skills.snapshots import SnapshotStore

    package = write_skill(tmp_path / "pkg", "demo")
    snapshots = SnapshotStore(tmp_path / "snaps", max_versions=3)
    taken = [snapshots.take("user", "demo", package, "manual", None).version_id for _ in range(5)]
    kept = [v.version_id for v in snapshots.list("user", "demo")]
    assert kept == list(reversed(taken))[:3]
    assert sorted(p.name for p in (tmp_path / "snaps" / "user" / "demo").iterdir()) == sorted(
        [*kept, *(f"{k}.json" for k in kept)]
    )

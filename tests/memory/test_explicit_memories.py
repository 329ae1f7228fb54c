"""Explicit memories: AND search over keywords and tags, full ids, guarded writes (SPEC S5.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.memory.explicit import MemoryRecord, MemoryRepository
from app.store.errors import Conflict, InvalidId, NotFound


@pytest.fixture
def repo(tmp_path: Path) -> MemoryRepository:
    return MemoryRepository(open_database(tmp_path / "db.sqlite3"))


def ids(records: list[MemoryRecord]) -> set[str]:
    return {r.id for r in records}


def test_search_is_and_over_keywords_and_tags(repo: MemoryRepository) -> None:
    uv = repo.add("Python projects use uv for dependencies", ["python", "tooling"])
    pip = repo.add("Old scripts still use pip", ["python"])
    cn = repo.add("Python 项目统一使用 uv 管理依赖", ["tooling"])

    assert ids(repo.search(["uv"])) == {uv.id, cn.id}
    assert ids(repo.search(["uv"], ["python"])) == {uv.id}
    # A keyword found only in a tag still matches.
    assert ids(repo.search(["tooling"])) == {uv.id, cn.id}
    # Every required tag must be present.
    assert ids(repo.search([], ["python", "tooling"])) == {uv.id}
    assert repo.search([], ["python", "missing"]) == []
    # Two keywords, one of which misses: no hit.
    assert repo.search(["uv", "cargo"]) == []
    # Case-insensitive, short keywords (LIKE path) and CJK substrings.
    assert ids(repo.search(["PIP"])) == {pip.id}
    assert ids(repo.search(["项目", "uv"])) == {cn.id}
    assert ids(repo.search(["py", "pip"])) == {pip.id}
    # Nothing to search for is an error (listing is `list`), as are blank and over-long words.
    for words in ((), ("  ",), ("x" * 501,)):
        with pytest.raises(ValueError, match="search"):
            repo.search(words)


def test_like_wildcards_in_keywords_are_literal(repo: MemoryRepository) -> None:
    repo.add("disk is 100% full")
    repo.add("disk is 100 full")
    assert [r.content for r in repo.search(["100%"])] == ["disk is 100% full"]
    assert [r.content for r in repo.search(["%"])] == ["disk is 100% full"]


def test_update_replaces_text_and_tags_and_search_follows(repo: MemoryRepository) -> None:
    rec = repo.add("uses pip", ["python"])
    new = repo.update(rec.id, "uses uv sync", ["tooling"])
    assert new.tags == ("tooling",) and new.created_at == rec.created_at
    assert repo.search(["pip"]) == [] and repo.search([], ["python"]) == []
    assert ids(repo.search(["sync"], ["tooling"])) == {rec.id}


def test_full_ids_only_and_stale_writes_fail(repo: MemoryRepository) -> None:
    rec = repo.add("a fact")
    with pytest.raises(InvalidId):
        repo.delete(rec.id[:8])
    with pytest.raises(InvalidId):
        repo.get(rec.id.upper())
    with pytest.raises(NotFound):
        repo.delete("00000000-0000-4000-8000-000000000000")
    changed = repo.update(rec.id, "a changed fact")
    with pytest.raises(Conflict):
        repo.delete(rec.id, expected_updated_at=rec.updated_at)
    assert repo.get(rec.id).content == "a changed fact"
    repo.delete(rec.id, expected_updated_at=changed.updated_at)
    assert repo.count() == 0


def test_bad_input_is_refused_and_changes_nothing(repo: MemoryRepository) -> None:
    with pytest.raises(ValueError, match="empty"):
        repo.add("   ")
    with pytest.raises(ValueError, match="invalid tag"):
        repo.add("x", ["two words"])
    with pytest.raises(ValueError, match="limited"):
        repo.add("x" * 10_001)
    rec = repo.add("keep me", ["a"])
    with pytest.raises(ValueError):
        repo.update(rec.id, "", ["a"])
    assert repo.get(rec.id).content == "keep me" and repo.count() == 1
    assert repo.add("Tags  ARE\tnormalised", ["B", "a", "b"]).tags == ("a", "b")

"""`MemoryRepository.count()` is cached between searches but never stale: writes through this
connection, through another repository on it, and commits by another process all show."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.memory.explicit import MemoryRepository


def test_count_follows_every_kind_of_write(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    db = open_database(path)
    repo, sibling = MemoryRepository(db), MemoryRepository(db)
    assert repo.count() == 0
    first = repo.add("first fact")
    assert repo.count() == 1
    sibling.add("second fact")  # same connection, other repository: not in repo's own bookkeeping
    assert repo.count() == 2
    with open_database(path) as other:  # another connection, like `cashcode memories add`
        MemoryRepository(other).add("third fact")
    assert repo.count() == 3
    repo.delete(first.id)
    assert repo.count() == 2
    with db.transaction() as conn:  # a raw write (an import, a migration)
        conn.execute("DELETE FROM memories")
    assert repo.count() == 0
    db.close()


def test_frequent_keywords_read_newest_first_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.memory.explicit as explicit

    repo = MemoryRepository(open_database(tmp_path / "db.sqlite3"))
    for i in range(12):
        repo.add(f"Common Python fact number {i} 项目{i % 3}", ["py"] if i % 2 else ["other"])
    repo.add("an unrelated note", ["py"])
    queries = [
        (["python"], []),
        (["PYTHON", "fact"], ["py"]),
        (["项目1"], []),
        (["number", "zzz"], []),
        (["fact"], []),
    ]
    sparse = [[m.id for m in repo.search(w, t, limit=5)] for w, t in queries]
    monkeypatch.setattr(explicit, "DENSE_HITS", 3)  # now every keyword here counts as frequent
    dense = [[m.id for m in repo.search(w, t, limit=5)] for w, t in queries]
    assert dense == sparse
    assert [len(x) for x in dense] == [5, 5, 4, 0, 5]

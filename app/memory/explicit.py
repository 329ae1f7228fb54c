"""Explicit memories (SPEC S5.4, cdy-agent's behaviour): add / list / search / update / delete.

Search is AND over keywords and tags: every keyword must occur (case-insensitively, as a
substring) in the normalised text or in one of the tags, and the record must carry every
requested tag. Ids are full lowercase UUIDs only — no abbreviations.

One repository per owner (issue 38): "" is the shared memory, an agent id that agent's own;
each sees only its own rows, and another owner's id reads as not found.

Writes that were confirmed by a user may pass `expected_updated_at`: when the record changed
(or vanished) since the user saw it, the write fails with Conflict/NotFound and changes nothing.
"""

from __future__ import annotations

import builtins
import functools
import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.contracts.errors import say
from app.memory.schema import FTS_TABLE
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id, validate_id
from app.store.search import fts_query, like_patterns
from app.store.timeutil import utc_now_iso

MAX_CONTENT = 10_000
MAX_TAGS = 20
MAX_TAG = 64
MAX_WORDS = 20
MAX_QUERY = 500  # characters of a search's words together
DENSE_HITS = 2000  # index hits beyond which search reads newest-first instead (see `_dense`)
_TAG = re.compile(r"^[^\s,]{1,64}$")


@dataclass(frozen=True)
class MemoryRecord:
    id: str
    content: str
    tags: tuple[str, ...]
    created_at: str
    updated_at: str
    asked_by: str = ""  # which chat ("chat:<id>") or command asked for it; "" from the Memory view


def normalize_content(text: str) -> str:
    """Trim and collapse runs of whitespace inside lines; keep line breaks (lists stay lists)."""
    lines = [" ".join(line.split()) for line in str(text).strip().splitlines()]
    cleaned = "\n".join(lines).strip()
    if not cleaned:
        raise ValueError("a memory must not be empty")
    if len(cleaned) > MAX_CONTENT:
        raise ValueError(f"a memory is limited to {MAX_CONTENT} characters (got {len(cleaned)})")
    return cleaned


def normalize_tags(tags: Sequence[str]) -> tuple[str, ...]:
    """Lowercase, unique, sorted. A tag is 1-64 characters without spaces or commas."""
    out: set[str] = set()
    for raw in tags:
        tag = str(raw).strip().casefold()
        if not _TAG.fullmatch(tag):
            raise ValueError(f"invalid tag {str(raw)[:70]!r}: 1-{MAX_TAG} characters, no spaces or commas")
        out.add(tag)
    if len(out) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} tags per memory")
    return tuple(sorted(out))


def normalize_words(words: Sequence[str]) -> tuple[str, ...]:
    """Search keywords: split on whitespace, case-folded, duplicates dropped (order kept)."""
    seen: dict[str, None] = {}
    for raw in words:
        for part in str(raw).split():
            seen.setdefault(part.casefold(), None)
    if len(seen) > MAX_WORDS:
        raise ValueError(f"at most {MAX_WORDS} search words")
    return tuple(seen)


def check_query(words: Sequence[str], tags: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A search's keywords and tags, or ValueError (the same words in the CLI, REST and the
    model's tool): a blank word, words over MAX_QUERY characters, or nothing to search for."""
    if any(not str(w).strip() for w in words):
        raise ValueError(say("memory.search_blank"))
    if sum(len(str(w)) for w in words) + max(len(words) - 1, 0) > MAX_QUERY:
        raise ValueError(say("memory.search_too_long", limit=MAX_QUERY))
    terms, required = normalize_words(words), normalize_tags(tags)
    if not terms and not required:
        raise ValueError(say("memory.search_empty"))
    return terms, required


def _search_text(content: str, tags: Sequence[str]) -> str:
    # One line per part: a keyword (which never contains whitespace) cannot match across parts.
    return "\n".join([content.casefold(), *tags])


# What a record needs (not `search_text`, a second copy of the content used only to match).
_COLUMNS = "m.id, m.content, m.tags, m.created_at, m.updated_at, m.asked_by"


class MemoryRepository:
    def __init__(self, db: Database, owner: str = "") -> None:
        self._db = db
        self._owner = owner
        self._fts: bool | None = None
        # count() is asked with every search page; counting 100,000 rows each time cost more
        # than the search. Cached until the database changes: `total_changes` moves with every
        # write on this connection, `data_version` with every commit by another connection.
        self._count: tuple[tuple[int, int], int] | None = None

    def add(
        self, content: str, tags: Sequence[str] = (), *, memory_id: str | None = None, asked_by: str = ""
    ) -> MemoryRecord:
        """A new memory. `memory_id`: the id shown in a confirmation (else a fresh one);
        `asked_by`: which chat or command asked for it (its provenance)."""
        mid = new_id() if memory_id is None else validate_id(memory_id, "memory id")
        text, clean_tags = normalize_content(content), normalize_tags(tags)
        asked_by = asked_by[:200]
        now = utc_now_iso()
        try:
            with self._db.transaction() as conn:
                _refuse_duplicate(conn, text, mid, self._owner)
                cur = conn.execute(
                    "INSERT INTO memories (id, content, tags, search_text, created_at, updated_at,"
                    " asked_by, owner) VALUES (?,?,?,?,?,?,?,?)",
                    (
                        mid,
                        text,
                        json.dumps(clean_tags),
                        _search_text(text, clean_tags),
                        now,
                        now,
                        asked_by,
                        self._owner,
                    ),
                )
                _write_tags(conn, int(cur.lastrowid or 0), clean_tags, now)
        except sqlite3.IntegrityError as exc:
            raise Conflict(say("memory.exists", id=mid)) from exc
        return MemoryRecord(mid, text, clean_tags, now, now, asked_by)

    def refuse_duplicate(self, content: str, *, memory_id: str = "") -> None:
        """Raise Conflict (naming it) when another memory has this text: checked before a
        confirmation is asked (the write checks again, in its transaction)."""
        text = normalize_content(content)
        with self._db.reading() as conn:
            _refuse_duplicate(conn, text, memory_id, self._owner)

    def get(self, memory_id: str) -> MemoryRecord:
        mid = validate_id(memory_id, "memory id")
        rows = self._db.query("SELECT * FROM memories WHERE id = ? AND owner = ?", (mid, self._owner))
        if not rows:
            raise NotFound(say("memory.not_found", id=mid))
        return _record(rows[0])

    def list(self, *, limit: int = 10_000) -> builtins.list[MemoryRecord]:
        """Most recently changed first."""
        sql = f"SELECT {_COLUMNS} FROM memories m WHERE owner = ? ORDER BY updated_at DESC, num DESC LIMIT ?"
        rows = self._db.query(sql, (self._owner, limit))
        return [_record(r) for r in rows]

    def count(self) -> int:
        with self._db.reading() as conn:
            stamp = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
            if self._count is not None and self._count[0] == stamp:
                return self._count[1]
            sql = "SELECT count(*) FROM memories WHERE owner = ?"
            total = int(conn.execute(sql, (self._owner,)).fetchone()[0])
        self._count = (stamp, total)
        return total

    def search(
        self, words: Sequence[str] = (), tags: Sequence[str] = (), *, limit: int = 200
    ) -> builtins.list[MemoryRecord]:
        """AND over keywords (text or tag) and required tags; newest first.

        The most selective index leads: the trigram index for keywords of 3+ characters, else
        the first tag's (tag, updated_at) index read newest-first, else the memories in
        updated order; the other conditions filter, and reading stops at `limit`."""
        terms, required = check_query(words, tags)
        match = fts_query(terms) if terms and self._has_fts() else None
        if match is not None and self._dense(match):
            match = None  # frequent keywords: newest-first reading finds `limit` hits soonest
        # With the trigram index leading, the owner only filters its hits (`+` keeps SQLite from
        # scanning every memory of the owner in time order instead); else its index orders them.
        where: builtins.list[str] = ["+m.owner = ?" if match is not None else "m.owner = ?"]
        params: builtins.list[object] = [self._owner]
        if match is not None:
            source, order = "memories m", "m.updated_at DESC, m.num DESC"
            where.append(f"m.num IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)")
            params.append(match)
            rest = required
        elif required:
            source = "memory_tags t CROSS JOIN memories m ON m.num = t.memory_num"
            order = "t.updated_at DESC, t.memory_num DESC"
            where.append("t.tag = ?")
            params.append(required[0])
            rest = required[1:]
        else:
            source, order, rest = "memories m", "m.updated_at DESC, m.num DESC", ()
        for tag in rest:
            where.append("EXISTS (SELECT 1 FROM memory_tags x WHERE x.tag = ? AND x.memory_num = m.num)")
            params.append(tag)
        if terms and match is None:
            patterns = like_patterns(terms)
            where.extend("m.search_text LIKE ? ESCAPE '\\'" for _ in patterns)
            params.extend(patterns)
        sql = f"SELECT {_COLUMNS} FROM {source}"
        sql += " WHERE " + " AND ".join(where)
        rows = self._db.query(f"{sql} ORDER BY {order} LIMIT ?", (*params, limit))
        return [_record(r) for r in rows]

    def _dense(self, match: str) -> bool:
        """Whether the keywords hit at least DENSE_HITS memories. Then sorting every hit by time
        costs more than reading memories newest first (LIKE filter) until `limit` of them
        matched: with that many hits, the newest few thousand rows hold them."""
        sql = f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? LIMIT ?)"
        return int(self._db.query(sql, (match, DENSE_HITS))[0][0]) >= DENSE_HITS

    def update(
        self,
        memory_id: str,
        content: str,
        tags: Sequence[str] = (),
        *,
        expected_updated_at: str | None = None,
    ) -> MemoryRecord:
        """Replace content and tags entirely."""
        mid = validate_id(memory_id, "memory id")
        text, clean_tags = normalize_content(content), normalize_tags(tags)
        now = utc_now_iso()
        with self._db.transaction() as conn:
            row = self._current(conn, mid, expected_updated_at)
            _refuse_duplicate(conn, text, mid, self._owner)
            conn.execute(
                "UPDATE memories SET content = ?, tags = ?, search_text = ?, updated_at = ? WHERE id = ?",
                (text, json.dumps(clean_tags), _search_text(text, clean_tags), now, mid),
            )
            conn.execute("DELETE FROM memory_tags WHERE memory_num = ?", (row["num"],))
            _write_tags(conn, int(row["num"]), clean_tags, now)
        return MemoryRecord(mid, text, clean_tags, row["created_at"], now, row["asked_by"])

    def delete(self, memory_id: str, *, expected_updated_at: str | None = None) -> MemoryRecord:
        mid = validate_id(memory_id, "memory id")
        with self._db.transaction() as conn:
            row = self._current(conn, mid, expected_updated_at)
            conn.execute("DELETE FROM memories WHERE id = ?", (mid,))
        return _record(row)

    def _current(self, conn: sqlite3.Connection, mid: str, expected: str | None) -> sqlite3.Row:
        sql = "SELECT * FROM memories WHERE id = ? AND owner = ?"
        row = conn.execute(sql, (mid, self._owner)).fetchone()
        if row is None:
            raise NotFound(say("memory.deleted_meanwhile", id=mid))
        if expected is not None and row["updated_at"] != expected:
            raise Conflict(say("memory.changed_meanwhile", id=mid))
        checked: sqlite3.Row = row
        return checked

    def _has_fts(self) -> bool:
        if self._fts is None:
            self._fts = self._db.has_table(FTS_TABLE)
        return self._fts


def _refuse_duplicate(conn: sqlite3.Connection, text: str, own_id: str, owner: str) -> None:
    """Two memories with the same (normalised) text would be shown and searched twice: the
    second is refused, naming the first, so the caller can update that one instead."""
    sql = "SELECT id FROM memories WHERE content = ? AND id != ? AND owner = ? LIMIT 1"
    row = conn.execute(sql, (text, own_id, owner)).fetchone()
    if row is not None:
        raise Conflict(say("memory.duplicate", id=row["id"]))


def _write_tags(conn: sqlite3.Connection, num: int, tags: Sequence[str], updated_at: str) -> None:
    conn.executemany(
        "INSERT INTO memory_tags (tag, memory_num, updated_at) VALUES (?, ?, ?)",
        [(t, num, updated_at) for t in tags],
    )


def _record(row: sqlite3.Row) -> MemoryRecord:
    return MemoryRecord(
        id=row["id"],
        content=row["content"],
        tags=_tags(row["tags"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        asked_by=row["asked_by"],
    )


@functools.lru_cache(maxsize=4096)
def _tags(stored: str) -> tuple[str, ...]:
    # Tag sets repeat across memories: a page of 100 results decodes a handful of distinct ones.
    return tuple(json.loads(stored))

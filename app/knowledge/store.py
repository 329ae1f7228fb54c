"""The knowledge tables (app/knowledge/schema.py): bases, roots, indexed files and chunks.

Every write is one transaction. `put_files` replaces each file's row, chunks and index rows
together (several files per transaction, each one whole): a search sees the old version of a
file or the new one, never a half-indexed file. Tokens are computed before the transaction
(`prepare`), so the database is not held while the tokeniser works.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from app.contracts.errors import ApiFailure, say
from app.knowledge.models import BaseStatus, Chunk, Hit, Skipped
from app.knowledge.prepare import FileState, Prepared, index_text, prepare
from app.store.db import Database
from app.store.timeutil import utc_now_iso

MAX_NAME = 64


class Sized(Protocol):
    @property
    def size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...


def check_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ApiFailure("invalid", say("kb.name_required"))
    if len(name) > MAX_NAME:
        raise ApiFailure("invalid", say("kb.name_too_long", max=MAX_NAME))
    if not name.isprintable():
        raise ApiFailure("invalid", say("kb.name_control"))
    return name


def match_expression(query: str) -> str | None:
    """An FTS5 query: any of the query's tokens (ranked by BM25), each quoted."""
    from app.search.bm25 import tokenize

    tokens = list(dict.fromkeys(tokenize(query)))
    return " OR ".join(f'"{t}"' for t in tokens) if tokens else None


class KnowledgeStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- bases and roots --------------------------------------------------------------------

    def has_bases(self) -> bool:
        return bool(self._db.query("SELECT 1 FROM kb_bases LIMIT 1"))

    def names(self) -> list[str]:
        return [str(r[0]) for r in self._db.query("SELECT name FROM kb_bases ORDER BY name")]

    def base_id(self, name: str) -> int:
        rows = self._db.query("SELECT id FROM kb_bases WHERE name = ?", (name,))
        if not rows:
            raise ApiFailure("not_found", say("kb.not_found_cli", name=name))
        return int(rows[0][0])

    def create(self, name: str) -> None:
        name = check_name(name)
        now = utc_now_iso()
        with self._db.transaction() as conn:
            if conn.execute("SELECT 1 FROM kb_bases WHERE name = ?", (name,)).fetchone():
                raise ApiFailure("conflict", say("kb.exists", name=name))
            conn.execute(
                "INSERT INTO kb_bases (name, created_at, updated_at) VALUES (?, ?, ?)", (name, now, now)
            )

    def ensure(self, name: str) -> bool:
        """Create the base unless it exists; True if it was created."""
        name = check_name(name)
        with self._db.transaction() as conn:
            if conn.execute("SELECT 1 FROM kb_bases WHERE name = ?", (name,)).fetchone():
                return False
            now = utc_now_iso()
            conn.execute(
                "INSERT INTO kb_bases (name, created_at, updated_at) VALUES (?, ?, ?)", (name, now, now)
            )
            return True

    def rename(self, old: str, new: str) -> None:
        new = check_name(new)
        with self._db.transaction() as conn:
            base = self.base_id(old)
            if new != old and conn.execute("SELECT 1 FROM kb_bases WHERE name = ?", (new,)).fetchone():
                raise ApiFailure("conflict", say("kb.exists", name=new))
            conn.execute(
                "UPDATE kb_bases SET name = ?, updated_at = ? WHERE id = ?", (new, utc_now_iso(), base)
            )

    def delete(self, name: str) -> None:
        with self._db.transaction() as conn:
            base = self.base_id(name)
            _delete_fts(
                conn,
                "SELECT c.id FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id WHERE f.base_id = ?",
                (base,),
            )
            conn.execute("DELETE FROM kb_bases WHERE id = ?", (base,))

    def roots(self, name: str) -> list[str]:
        base = self.base_id(name)
        return [
            str(r[0])
            for r in self._db.query("SELECT path FROM kb_roots WHERE base_id = ? ORDER BY path", (base,))
        ]

    def all_roots(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {n: [] for n in self.names()}
        rows = self._db.query(
            "SELECT b.name, r.path FROM kb_roots r JOIN kb_bases b ON b.id = r.base_id ORDER BY r.path"
        )
        for name, path in rows:
            out[str(name)].append(str(path))
        return out

    def add_root(self, name: str, path: str) -> bool:
        """Add a folder or file; False if the base has it already."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            if conn.execute("SELECT 1 FROM kb_roots WHERE base_id = ? AND path = ?", (base, path)).fetchone():
                return False
            conn.execute("INSERT INTO kb_roots (base_id, path) VALUES (?, ?)", (base, path))
            conn.execute("UPDATE kb_bases SET updated_at = ? WHERE id = ?", (utc_now_iso(), base))
            return True

    def remove_root(self, name: str, path: str) -> None:
        """Remove a root; its files leave the index at the next scan of the base."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            gone = conn.execute("DELETE FROM kb_roots WHERE base_id = ? AND path = ?", (base, path)).rowcount
            if not gone:
                raise ApiFailure("not_found", say("kb.not_a_source", path=path, name=name))

    # ---- index state ------------------------------------------------------------------------

    def waiting_at_most(self, wait_ms: int) -> AbstractContextManager[None]:
        """On this thread, wait at most `wait_ms` for the database (Database.waiting_at_most)."""
        return self._db.waiting_at_most(wait_ms)

    def set_pending(self, name: str, pending: bool) -> None:
        with self._db.transaction() as conn:
            base = self.base_id(name)
            if pending:
                conn.execute("UPDATE kb_bases SET pending = 1 WHERE id = ?", (base,))
            else:
                conn.execute(
                    "UPDATE kb_bases SET pending = 0, indexed_at = ? WHERE id = ?", (utc_now_iso(), base)
                )

    def shrink_memory(self) -> None:
        """Free the connection's unused cache pages (after a scan read every record)."""
        self._db.query("PRAGMA shrink_memory")

    def pending_names(self) -> list[str]:
        return [
            str(r[0]) for r in self._db.query("SELECT name FROM kb_bases WHERE pending = 1 ORDER BY name")
        ]

    def file_states(self, name: str) -> dict[str, FileState]:
        base = self.base_id(name)
        rows = self._db.query("SELECT path, size, mtime_ns, sha256 FROM kb_files WHERE base_id = ?", (base,))
        return {str(r[0]): FileState(int(r[1]), int(r[2]), str(r[3])) for r in rows}

    def compare(
        self, name: str, found: Mapping[str, Sized]
    ) -> tuple[list[str], dict[str, FileState], set[str]]:
        """The base's records against a scan (`found`: path → its size and mtime), streamed:
        (indexed paths not found, records of found files whose size or mtime differ, found
        paths not indexed)."""
        base = self.base_id(name)
        rest = set(found)
        gone: list[str] = []
        changed: dict[str, FileState] = {}
        with self._db.reading() as conn:
            sql = "SELECT path, size, mtime_ns, sha256 FROM kb_files WHERE base_id = ?"
            for path, size, mtime_ns, sha256 in conn.execute(sql, (base,)):
                seen = found.get(path)
                if seen is None:
                    gone.append(path)
                    continue
                rest.discard(path)
                if seen.size != size or seen.mtime_ns != mtime_ns:
                    changed[path] = FileState(size, mtime_ns, sha256)
            # This thread's connection cached the pages it read (up to 2 MB, for every file's
            # record): give them back now; another thread's shrink would not reach them.
            conn.execute("PRAGMA shrink_memory")
        return gone, changed, rest

    def file_state(self, name: str, path: str) -> FileState | None:
        base = self.base_id(name)
        rows = self._db.query(
            "SELECT size, mtime_ns, sha256 FROM kb_files WHERE base_id = ? AND path = ?", (base, path)
        )
        return FileState(int(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else None

    def paths_under(self, name: str, folder: str) -> list[str]:
        """Indexed paths inside `folder` (a deleted folder's files)."""
        base = self.base_id(name)
        prefix = folder.rstrip("/\\") + os.sep
        rows = self._db.query(
            "SELECT path FROM kb_files WHERE base_id = ? AND substr(path, 1, ?) = ? ORDER BY path",
            (base, len(prefix), prefix),
        )
        return [str(r[0]) for r in rows]

    def replace_skipped(self, name: str, skipped: Sequence[Skipped]) -> None:
        with self._db.transaction() as conn:
            base = self.base_id(name)
            conn.execute("DELETE FROM kb_skipped WHERE base_id = ?", (base,))
            conn.executemany(
                "INSERT OR REPLACE INTO kb_skipped (base_id, path, reason) VALUES (?, ?, ?)",
                [(base, s.path, s.reason) for s in skipped],
            )

    def set_skipped(self, name: str, item: Skipped | None, path: str) -> None:
        """One path's skip entry (watcher): `item` None clears it."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            conn.execute("DELETE FROM kb_skipped WHERE base_id = ? AND path = ?", (base, path))
            if item is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO kb_skipped (base_id, path, reason) VALUES (?, ?, ?)",
                    (base, item.path, item.reason),
                )

    def skipped(self, name: str) -> list[Skipped]:
        base = self.base_id(name)
        rows = self._db.query("SELECT path, reason FROM kb_skipped WHERE base_id = ? ORDER BY path", (base,))
        return [Skipped(path=str(r[0]), reason=str(r[1])) for r in rows]

    def touch_file(self, name: str, path: str, state: FileState) -> None:
        """Same content, new size/mtime record (a `touch`): no re-chunking."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            conn.execute(
                "UPDATE kb_files SET size = ?, mtime_ns = ? WHERE base_id = ? AND path = ?",
                (state.size, state.mtime_ns, base, path),
            )

    def put_file(self, name: str, path: str, state: FileState, chunks: Sequence[Chunk]) -> None:
        """Replace one file's chunks (one transaction)."""
        self.put_files(name, [prepare(path, state, chunks)])

    def put_files(self, name: str, files: Sequence[Prepared]) -> None:
        """Replace the chunks of each file, all in one transaction. Chunk ids are assigned here
        (the next ids SQLite would pick, max + 1) so chunks and index rows go in with one
        `executemany` each instead of two statements per chunk."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            for f in files:
                _drop_file(conn, base, f.path)
            next_id = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM kb_chunks").fetchone()[0])
            chunk_rows: list[tuple[object, ...]] = []
            fts_rows: list[tuple[int, str]] = []
            for f in files:
                cur = conn.execute(
                    "INSERT INTO kb_files (base_id, path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?, ?)",
                    (base, f.path, f.state.size, f.state.mtime_ns, f.state.sha256),
                )
                file_id = cur.lastrowid
                for ord_, (start, end, heading, text, tokens) in enumerate(f.rows):
                    chunk_rows.append((next_id, file_id, ord_, start, end, heading, text))
                    fts_rows.append((next_id, tokens))
                    next_id += 1
            conn.executemany(
                "INSERT INTO kb_chunks (id, file_id, ord, start_line, end_line, heading, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                chunk_rows,
            )
            conn.executemany("INSERT INTO kb_fts (rowid, tokens) VALUES (?, ?)", fts_rows)
            conn.executemany(
                "DELETE FROM kb_skipped WHERE base_id = ? AND path = ?", [(base, f.path) for f in files]
            )

    def remove_file(self, name: str, path: str) -> bool:
        with self._db.transaction() as conn:
            return _drop_file(conn, self.base_id(name), path)

    def move_file(self, name: str, old: str, new: str) -> bool:
        """A rename: the chunks follow the file (index rows hold the file name: rewritten)."""
        with self._db.transaction() as conn:
            base = self.base_id(name)
            row = conn.execute(
                "SELECT id FROM kb_files WHERE base_id = ? AND path = ?", (base, old)
            ).fetchone()
            if row is None:
                return False
            _drop_file(conn, base, new)
            conn.execute("UPDATE kb_files SET path = ? WHERE id = ?", (new, row[0]))
            for cid, start, end, heading, text in conn.execute(
                "SELECT id, start_line, end_line, heading, text FROM kb_chunks WHERE file_id = ?", (row[0],)
            ).fetchall():
                c = Chunk(start_line=start, end_line=end, heading=heading, text=text)
                conn.execute("DELETE FROM kb_fts WHERE rowid = ?", (cid,))
                conn.execute("INSERT INTO kb_fts (rowid, tokens) VALUES (?, ?)", (cid, index_text(new, c)))
            return True

    # ---- reading ----------------------------------------------------------------------------

    def status(self) -> list[BaseStatus]:
        rows = self._db.query(
            "SELECT b.id, b.name, b.indexed_at, b.pending,"
            " (SELECT count(*) FROM kb_files f WHERE f.base_id = b.id),"
            " (SELECT count(*) FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id WHERE f.base_id = b.id),"
            " (SELECT count(*) FROM kb_skipped s WHERE s.base_id = b.id)"
            " FROM kb_bases b ORDER BY b.name"
        )
        roots = self.all_roots()
        return [
            BaseStatus(
                name=str(r[1]),
                roots=tuple(roots.get(str(r[1]), [])),
                files=int(r[4]),
                chunks=int(r[5]),
                skipped=int(r[6]),
                indexed_at=r[2],
                pending=bool(r[3]),
            )
            for r in rows
        ]

    def search(self, query: str, base: str | None, limit: int) -> list[Hit]:
        base_id = self.base_id(base) if base is not None else None  # an unknown base says so
        expression = match_expression(query)
        if expression is None:  # nothing searchable ("x", "中": one-character tokens are dropped)
            return []
        # FTS5 ranks and cuts first (`ORDER BY rank LIMIT` is its fast path); the joins then
        # run for those rows only. With a base filter the cut is wider; if the filter leaves
        # too few, the exact (slower) form ranks only that base's rows.
        wide = limit if base_id is None else limit * 20
        hits = self._ranked(expression, base_id, limit, wide)
        if base_id is not None and len(hits) < limit:
            hits = self._ranked(expression, base_id, limit, None)
        return hits

    def _ranked(self, expression: str, base_id: int | None, limit: int, wide: int | None) -> list[Hit]:
        where = "" if base_id is None else " WHERE f.base_id = ?"
        extra: tuple[object, ...] = () if base_id is None else (base_id,)
        if wide is not None:
            top = "SELECT rowid AS id, rank AS r FROM kb_fts WHERE kb_fts MATCH ? ORDER BY rank LIMIT ?"
            params: tuple[object, ...] = (expression, wide, *extra, limit)
        else:
            top = "SELECT rowid AS id, rank AS r FROM kb_fts WHERE kb_fts MATCH ?"
            params = (expression, *extra, limit)
        rows = self._db.query(
            f"SELECT {_HIT_COLUMNS}, top.r FROM ({top}) AS top JOIN kb_chunks c ON c.id = top.id"
            f" JOIN kb_files f ON f.id = c.file_id JOIN kb_bases b ON b.id = f.base_id{where}"
            " ORDER BY top.r, c.id LIMIT ?",
            params,
        )
        return [_hit(r, round(-float(r[7]), 6)) for r in rows]

    def indexed_file(self, path: str) -> tuple[str, list[str]] | None:
        """The base holding this indexed file (the first by name) and that base's roots."""
        rows = self._db.query(
            "SELECT b.id, b.name FROM kb_bases b JOIN kb_files f ON f.base_id = b.id AND f.path = ?"
            " ORDER BY b.name LIMIT 1",
            (path,),
        )
        if not rows:
            return None
        roots = self._db.query("SELECT path FROM kb_roots WHERE base_id = ? ORDER BY path", (rows[0][0],))
        return str(rows[0][1]), [str(r[0]) for r in roots]

    def paths_ending(self, suffix: str, limit: int) -> list[str]:
        """Distinct indexed paths ending with `suffix` (case-sensitive), at most `limit`."""
        rows = self._db.query(
            "SELECT DISTINCT path FROM kb_files WHERE substr(path, -?) = ? ORDER BY path LIMIT ?",
            (len(suffix), suffix, limit),
        )
        return [str(r[0]) for r in rows]

    def hits(self, chunk_ids: Sequence[int]) -> dict[int, Hit]:
        """The chunks with these ids (score 0), by id."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self._db.query(
            f"SELECT {_HIT_COLUMNS} FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id"
            f" JOIN kb_bases b ON b.id = f.base_id WHERE c.id IN ({marks})",
            tuple(chunk_ids),
        )
        return {int(r[6]): _hit(r, 0.0) for r in rows}


_HIT_COLUMNS = "b.name, f.path, c.start_line, c.end_line, c.heading, c.text, c.id"


def _hit(r: sqlite3.Row, score: float) -> Hit:
    return Hit(
        base=str(r[0]),
        path=str(r[1]),
        start_line=int(r[2]),
        end_line=int(r[3]),
        heading=str(r[4]),
        score=score,
        text=str(r[5]),
        chunk_id=int(r[6]),
    )


def _drop_file(conn: sqlite3.Connection, base: int, path: str) -> bool:
    row = conn.execute("SELECT id FROM kb_files WHERE base_id = ? AND path = ?", (base, path)).fetchone()
    if row is None:
        return False
    _delete_fts(conn, "SELECT id FROM kb_chunks WHERE file_id = ?", (row[0],))
    conn.execute("DELETE FROM kb_files WHERE id = ?", (row[0],))
    return True


def _delete_fts(conn: sqlite3.Connection, chunk_ids_sql: str, params: tuple[object, ...]) -> None:
    conn.execute(f"DELETE FROM kb_fts WHERE rowid IN ({chunk_ids_sql})", params)

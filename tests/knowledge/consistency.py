"""Every searchable chunk matches its file: the index never holds a half-written file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.knowledge.extract import extract


def check_consistent(db_path: Path) -> int:
    """Assert each indexed file's chunks are exactly its current lines (and each chunk has its
    FTS row); returns the number of indexed files."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        files = conn.execute("SELECT id, path FROM kb_files").fetchall()
        for file_id, path in files:
            lines = extract(Path(path), Path(path).read_bytes()).lines
            chunks = conn.execute(
                "SELECT id, start_line, end_line, text FROM kb_chunks WHERE file_id = ? ORDER BY ord",
                (file_id,),
            ).fetchall()
            assert chunks or not any(line.strip() for line in lines), path
            for _cid, start, end, text in chunks:
                assert text == "\n".join(lines[start - 1 : end]), (path, start, end)
        orphans = conn.execute(
            "SELECT count(*) FROM kb_fts WHERE rowid NOT IN (SELECT id FROM kb_chunks)"
        ).fetchone()[0]
        missing = conn.execute(
            "SELECT count(*) FROM kb_chunks WHERE id NOT IN (SELECT rowid FROM kb_fts)"
        ).fetchone()[0]
        assert (orphans, missing) == (0, 0)
        return len(files)
    finally:
        conn.close()

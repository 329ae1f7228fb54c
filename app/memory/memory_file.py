"""MEMORY.md with a version history (SPEC S5.3).

The file `<data>/MEMORY.md` is what the user sees and may edit; every text it ever had is a row
in `memory_versions` (author, time, unified diff against the previous version). Writes go file
first (temp + fsync + rename), then the version row: a crash in between leaves the new file
without its row, and the next read notices the file differs from the newest version and records
it (author "disk"), so no text is ever lost and no version points at text that was never
written. Edits made on disk by hand are picked up the same way.

An agent with its own memory (issue 38) has `<data>/agents/<id>/MEMORY.md`, its versions the
rows whose `owner` is its id (the shared file's are ""): the same class, one per owner.

A file that is not valid UTF-8 is never overwritten by automatic writers (Dream, save_memory);
a user's own save or revert first moves it aside (`MEMORY.md.invalid-<time>`), so nothing is lost.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from app.contracts.errors import say
from app.settings.user_settings import atomic_write_text
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.timeutil import utc_now_iso

MEMORY_FILE = "MEMORY.md"
MAX_MEMORY_CHARS = 100_000
Author = Literal["dream", "save_memory", "user", "revert", "disk", "import", "forget"]


class MemoryFileError(ValueError):
    """MEMORY.md cannot be read (not UTF-8, unreadable); it was left unchanged."""


@dataclass(frozen=True)
class MemoryVersion:
    id: int
    author: str
    note: str
    created_at: str
    diff: str
    sha256: str
    chars: int


@dataclass(frozen=True)
class MemoryText:
    text: str
    sha256: str
    version_id: int | None


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unified_diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        "MEMORY.md (before)",
        "MEMORY.md (after)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _clean(text: str) -> str:
    body = text.replace("\r\n", "\n").strip()
    if len(body) > MAX_MEMORY_CHARS:
        raise ValueError(f"MEMORY.md is limited to {MAX_MEMORY_CHARS} characters (got {len(body)})")
    return body + "\n" if body else ""


_OWNER = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def memory_path(data_dir: Path, owner: str = "") -> Path:
    """The shared MEMORY.md (owner "") or an agent's own (its id is one path part, never more)."""
    if not owner:
        return data_dir / MEMORY_FILE
    if not _OWNER.fullmatch(owner):
        raise ValueError(f"not an agent id: {owner[:70]!r}")
    return data_dir / "agents" / owner / MEMORY_FILE


class MemoryFile:
    def __init__(self, db: Database, data_dir: Path, owner: str = "") -> None:
        self._db = db
        self.owner = owner
        self.path = memory_path(data_dir, owner)
        self._lock = threading.RLock()

    # ---- reading --------------------------------------------------------------------------

    def read(self) -> MemoryText:
        """The current text; a change made on disk is recorded as a version first."""
        with self._lock:
            text = self._read_disk()
            latest = self._latest()
            digest = sha256_text(text)
            if latest is None and not text:
                return MemoryText("", digest, None)
            if latest is not None and latest.sha256 == digest:
                return MemoryText(text, digest, latest.id)
            version = self._record("disk", "changed outside CashCode", text)
            return MemoryText(text, digest, version)

    def _read_disk(self) -> str:
        return read_memory_text(self.path)

    # ---- writing --------------------------------------------------------------------------

    def write(
        self, text: str, author: Author, note: str = "", *, base_sha256: str | None = None
    ) -> MemoryText:
        """Replace the text (a no-op when unchanged). `base_sha256`: fail with Conflict when the
        text changed since the caller read it. User writes set an undecodable file aside."""
        new = _clean(text)
        with self._lock:
            current = self._current_for_write(author)
            if base_sha256 is not None and base_sha256 != sha256_text(current):
                raise Conflict(say("memory.file_changed"))
            if new == current:
                latest = self._latest()
                return MemoryText(new, sha256_text(new), latest.id if latest else None)
            self.path.parent.mkdir(parents=True, exist_ok=True)  # an agent's folder may not exist yet
            atomic_write_text(self.path, new)
            version = self._record(author, note, new, previous=current)
            return MemoryText(new, sha256_text(new), version)

    def append_fact(self, fact: str) -> MemoryText:
        """`save_memory`: one more bullet at the end, at once."""
        line = " ".join(fact.split())
        if not line:
            raise ValueError("the fact to save must not be empty")
        with self._lock:
            current = self._current_for_write("save_memory")
            if any(" ".join(old.split()) == f"- {line}" for old in current.splitlines()):
                raise ValueError("MEMORY.md already has this line; nothing was added")
            joined = (current.rstrip("\n") + "\n" if current.strip() else "") + f"- {line}\n"
            return self.write(joined, "save_memory", line[:120])

    def revert(self, version_id: int) -> MemoryText:
        """Make an earlier version's text current again (a new version, author "revert")."""
        text = self.version_text(version_id)
        return self.write(text, "revert", f"back to version {version_id}")

    def _current_for_write(self, author: Author) -> str:
        try:
            return self.read().text
        except MemoryFileError:
            if author not in ("user", "revert", "import"):
                raise
            self._set_aside()
            return ""

    def _set_aside(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.path.with_name(f"{self.path.name}.invalid-{stamp}")
        os.replace(self.path, target)  # not a write: a damaged file is moved aside
        return target

    # ---- versions -------------------------------------------------------------------------

    def versions(self, limit: int = 500) -> list[MemoryVersion]:
        rows = self._db.query(
            "SELECT id, author, note, created_at, diff, sha256, length(text) AS chars"
            " FROM memory_versions WHERE owner = ? ORDER BY id DESC LIMIT ?",
            (self.owner, limit),
        )
        return [_version(r) for r in rows]

    def version_text(self, version_id: int) -> str:
        # Another owner's version reads as one that does not exist.
        rows = self._db.query(
            "SELECT text FROM memory_versions WHERE id = ? AND owner = ?", (version_id, self.owner)
        )
        if not rows:
            raise NotFound(say("memory.file_version_not_found", id=version_id))
        return str(rows[0]["text"])

    def _latest(self) -> MemoryVersion | None:
        rows = self._db.query(
            "SELECT id, author, note, created_at, diff, sha256, length(text) AS chars"
            " FROM memory_versions WHERE owner = ? ORDER BY id DESC LIMIT 1",
            (self.owner,),
        )
        return _version(rows[0]) if rows else None

    def _record(self, author: str, note: str, text: str, previous: str | None = None) -> int:
        with self._db.transaction() as conn:
            if previous is None:
                row = conn.execute(
                    "SELECT text FROM memory_versions WHERE owner = ? ORDER BY id DESC LIMIT 1", (self.owner,)
                ).fetchone()
                previous = row["text"] if row else ""
            cur = conn.execute(
                "INSERT INTO memory_versions (author, note, text, sha256, diff, created_at, owner)"
                " VALUES (?,?,?,?,?,?,?)",
                (
                    author,
                    note,
                    text,
                    sha256_text(text),
                    unified_diff(previous, text),
                    utc_now_iso(),
                    self.owner,
                ),
            )
            return int(cur.lastrowid or 0)


def read_memory_text(path: Path) -> str:
    """MEMORY.md's text ("" when absent); MemoryFileError when unreadable or not UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise MemoryFileError(f"cannot read {path}: {exc}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryFileError(
            f"{path} is not valid UTF-8 text (byte {exc.start}); it was left unchanged. "
            "Fix it in an editor, or save or revert MEMORY.md in the Memory view (the damaged "
            "file is then kept next to it)."
        ) from exc


def _version(row: sqlite3.Row) -> MemoryVersion:
    return MemoryVersion(
        id=int(row["id"]),
        author=row["author"],
        note=row["note"],
        created_at=row["created_at"],
        diff=row["diff"],
        sha256=row["sha256"],
        chars=int(row["chars"]),
    )

"""Where MEMORY.md's lines came from, and what was forgotten (issue 39).

MEMORY.md stays plain Markdown; its provenance lives beside it in `memory_line_sources`, keyed
by the line's normalised text (list marker, case and whitespace dropped), so editing spacing or
moving a line keeps its source and a line written by hand simply has none. Rows are only ever
added, each with the MEMORY.md version that wrote the line, so any version's text — after a
revert too — finds its sources.

A tombstone (`memory_tombstones`) is a forgotten line: Dream and save_memory never write it (or
a rewording of it: the same content words, see `same_fact`) back, and Dream's prompt lists them.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from app.store.db import Database
from app.store.timeutil import utc_now_iso

_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_WORD = re.compile(r"\w+")
# Words that carry no fact: "My dentist is …" and "The user's dentist is …" are the same fact.
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "i",
        "me",
        "my",
        "mine",
        "user",
        "user's",
        "users",
        "s",
        "their",
        "they",
        "them",
        "his",
        "her",
        "he",
        "she",
        "its",
        "it",
        "of",
        "to",
        "for",
        "and",
        "or",
        "with",
        "has",
        "have",
        "had",
        "that",
        "this",
        "on",
        "in",
        "at",
        "by",
        "as",
    ]
)
SAME_FACT = 0.7  # token-set (Jaccard) similarity from which a line is the forgotten fact again
MAX_LINE = 2_000
MESSAGE_EXCERPT = 300  # characters of a source message shown beside a proposed line


def line_key(line: str) -> str:
    """A line's identity: without its list marker, case-folded, whitespace collapsed."""
    return " ".join(_MARKER.sub("", line).split()).casefold()


@functools.lru_cache(maxsize=4096)  # tombstones are compared with every new line of a run
def fact_tokens(line: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(line_key(line)) if w not in _FILLER)


def same_fact(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= SAME_FACT


def fact_lines(text: str) -> list[str]:
    """The lines of MEMORY.md that state something (not headings, not blank)."""
    return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


@dataclass(frozen=True)
class LineSource:
    author: str  # "dream" | "save_memory" | …
    chat_id: str
    cursors: tuple[int, ...]  # the message(s) of that chat it came from
    turn_id: str  # save_memory: the turn that asked (its user message is found from it)
    version_id: int | None
    created_at: str


@dataclass(frozen=True)
class NewLine:
    line: str
    chat_id: str
    cursors: tuple[int, ...]
    turn_id: str = ""


@dataclass(frozen=True)
class Tombstone:
    id: int
    line: str
    version_id: int | None
    created_at: str


class Provenance:
    """Line sources of one owner's MEMORY.md ("" shared, else an agent's own; issue 38)."""

    def __init__(self, db: Database, owner: str = "") -> None:
        self._db = db
        self._owner = owner

    def record(self, author: str, version_id: int | None, lines: Iterable[NewLine]) -> None:
        now = utc_now_iso()
        rows = [
            (
                line_key(n.line),
                n.line[:MAX_LINE],
                author,
                n.chat_id,
                n.turn_id,
                json.dumps(list(n.cursors)),
                version_id,
                now,
                self._owner,
            )
            for n in lines
            if line_key(n.line)
        ]
        if not rows:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT INTO memory_line_sources (line_key, line, author, chat_id, turn_id, cursors,"
                " version_id, created_at, owner) VALUES (?,?,?,?,?,?,?,?,?)",
                rows,
            )

    def sources(self, line: str) -> list[LineSource]:
        """Every recorded source of the line, newest first (none: written by hand). A source
        recorded during a turn (save_memory) names that turn's user message."""
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT * FROM memory_line_sources WHERE owner = ? AND line_key = ? ORDER BY id DESC",
                (self._owner, line_key(line)),
            ).fetchall()
            found = []
            for r in rows:
                source = _source(r)
                if not source.cursors and source.turn_id:
                    asked = conn.execute(
                        "SELECT cursor FROM messages WHERE chat_id = ? AND turn_id = ? AND role = 'user'"
                        " ORDER BY cursor LIMIT 1",
                        (source.chat_id, source.turn_id),
                    ).fetchone()
                    if asked is not None:
                        source = replace(source, cursors=(int(asked[0]),))
                found.append(source)
        return found

    def message(self, chat_id: str, cursor: int | None) -> tuple[str, str]:
        """The chat's title and the text of its message at `cursor` ("" for what is gone), so
        a source reads as more than ids."""
        with self._db.reading() as conn:
            chat = conn.execute("SELECT title FROM chats WHERE id = ?", (chat_id,)).fetchone()
            said = (
                conn.execute(
                    "SELECT content FROM messages WHERE chat_id = ? AND cursor = ?", (chat_id, cursor)
                ).fetchone()
                if cursor is not None
                else None
            )
        return (str(chat[0]) if chat else "", str(said[0])[:MESSAGE_EXCERPT] if said else "")


class Tombstones:
    """Forgotten lines of one owner's MEMORY.md ("" shared, else an agent's own)."""

    def __init__(self, db: Database, owner: str = "") -> None:
        self._db = db
        self._owner = owner

    def add(self, lines: Sequence[str], version_id: int | None) -> None:
        now = utc_now_iso()
        with self._db.transaction() as conn:
            for line in lines:
                conn.execute(
                    "INSERT INTO memory_tombstones (line_key, line, version_id, created_at, owner)"
                    " VALUES (?,?,?,?,?)"
                    " ON CONFLICT(owner, line_key) DO UPDATE SET version_id = excluded.version_id",
                    (line_key(line), _MARKER.sub("", line).strip()[:MAX_LINE], version_id, now, self._owner),
                )

    def remove(self, tombstone_id: int) -> Tombstone | None:
        with self._db.transaction() as conn:
            sql = "SELECT * FROM memory_tombstones WHERE id = ? AND owner = ?"
            row = conn.execute(sql, (tombstone_id, self._owner)).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM memory_tombstones WHERE id = ?", (tombstone_id,))
        return _tombstone(row)

    def remove_keys(self, keys: Iterable[str]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(
                "DELETE FROM memory_tombstones WHERE owner = ? AND line_key = ?",
                [(self._owner, k) for k in keys],
            )

    def entries(self) -> list[Tombstone]:
        sql = "SELECT * FROM memory_tombstones WHERE owner = ? ORDER BY id DESC"
        rows = self._db.query(sql, (self._owner,))
        return [_tombstone(r) for r in rows]

    def drop_forgotten(self, current: str, new_text: str) -> tuple[str, list[str]]:
        """`new_text` without the lines it adds (not in `current`) that state a forgotten fact;
        and those lines. Lines already in `current` are the user's to keep."""
        forgotten = self.entries()
        if not forgotten:
            return new_text, []
        have = {line_key(ln) for ln in fact_lines(current)}
        stones = [(t.line, line_key(t.line), fact_tokens(t.line)) for t in forgotten]
        kept: list[str] = []
        dropped: list[str] = []
        for ln in new_text.splitlines():
            key = line_key(ln)
            if ln.strip() and not ln.lstrip().startswith("#") and key not in have:
                tokens = fact_tokens(ln)
                if any(key == k or same_fact(tokens, t) for _, k, t in stones):
                    dropped.append(ln)
                    continue
            kept.append(ln)
        return "\n".join(kept) + ("\n" if new_text.endswith("\n") else ""), dropped

    def forbids(self, line: str) -> Tombstone | None:
        key, tokens = line_key(line), fact_tokens(line)
        for t in self.entries():
            if line_key(t.line) == key or same_fact(tokens, fact_tokens(t.line)):
                return t
        return None


def best_messages(line: str, candidates: Sequence[tuple[str, int, str]]) -> list[tuple[str, int]]:
    """The (chat_id, cursor) of the user message(s) among `candidates` (chat_id, cursor, text)
    sharing the most content words with `line`; none when no message shares any."""
    want = fact_tokens(line)
    scored = [(len(want & fact_tokens(text)), chat, cursor) for chat, cursor, text in candidates]
    top = max((s for s, _, _ in scored), default=0)
    return [(chat, cursor) for s, chat, cursor in scored if top and s == top]


def _source(row: sqlite3.Row) -> LineSource:
    return LineSource(
        author=row["author"],
        chat_id=row["chat_id"],
        turn_id=row["turn_id"],
        cursors=tuple(int(c) for c in json.loads(row["cursors"])),
        version_id=row["version_id"],
        created_at=row["created_at"],
    )


def _tombstone(row: sqlite3.Row) -> Tombstone:
    return Tombstone(int(row["id"]), row["line"], row["version_id"], row["created_at"])

"""ChatRepository, part 4: searching every chat's text (FTS trigram index, LIKE fallback)."""

from __future__ import annotations

import builtins

from app.store.chat_rows import SearchHit
from app.store.chat_writes import ChatWrites
from app.store.migrations import FTS_TABLE
from app.store.search import TRIGRAM, fts_query, like_patterns, snippet

SEARCH_OVERFETCH = 5  # index hits read per wanted result (tool messages are filtered out)
SHORT_TERM_SCAN_ROWS = 100_000  # newest messages scanned for terms too short for the index


class ChatSearch(ChatWrites):
    def search(self, query: str, *, limit: int = 50) -> builtins.list[SearchHit]:
        """User and assistant messages containing every word of `query`, newest first."""
        terms = query.split()
        if not terms or limit < 1:
            return []
        base = (
            "SELECT m.chat_id, c.title, m.cursor, m.role, m.content, m.created_at"
            " FROM messages m JOIN chats c ON c.id = m.chat_id"
            " WHERE m.role IN ('user', 'assistant') AND "
        )
        long_terms = [t for t in terms if len(t) >= TRIGRAM]
        short = like_patterns([t for t in terms if len(t) < TRIGRAM])
        params: builtins.list[object]
        if self._has_fts() and long_terms:
            # Driven by the index, newest first, so a common word does not materialise every
            # match and a rare one does not scan the whole table (bench/bench_chat.py). Tool
            # output is indexed too, hence the over-fetch before the role and short-term filters.
            sql = base + (
                f"m.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
                " ORDER BY rowid DESC LIMIT ?)"
            )
            params = [fts_query(long_terms), limit * SEARCH_OVERFETCH * (4 if short else 1)]
            sql += "".join(" AND m.content LIKE ? ESCAPE '\\'" for _ in short)
            params += short
        elif self._has_fts():
            # Only terms a trigram index cannot match (e.g. a two-character Chinese word): a
            # scan, bounded to the newest messages so typing never stalls on a huge history.
            sql = base + " AND ".join("m.content LIKE ? ESCAPE '\\'" for _ in short)
            sql += " AND m.id > (SELECT COALESCE(MAX(id), 0) FROM messages) - ?"
            params = [*short, SHORT_TERM_SCAN_ROWS]
        else:
            patterns = like_patterns(terms)
            sql = base + " AND ".join("m.content LIKE ? ESCAPE '\\'" for _ in patterns)
            params = [*patterns]
        rows = self._db.query(sql + " ORDER BY m.id DESC LIMIT ?", (*params, limit))
        return [SearchHit(r[0], r[1], r[2], r[3], snippet(r[4], terms), r[5]) for r in rows]

    def _has_fts(self) -> bool:
        if self._fts is None:
            self._fts = self._db.has_table(FTS_TABLE)
        return self._fts

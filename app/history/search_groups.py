"""Search hits grouped per chat (issue 25 item 7, decision 246): each chat once, with how many
hits it has, its best few snippets, and for a hit on an older version which version it is.

The store returns hits newest first from a bounded window (`HITS_READ_PER_CHAT` per wanted
chat), so a chat's count is what that window held: `more` says when the window was full and
the count may be higher. Within a chat, hits on the current path come first (they open where
the user left the chat), then the newest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.attachments.text_index import AttachmentHit
from app.history import api_models as h
from app.history.highlight import segments
from app.store.chat_versions import OffPath
from app.store.chats import SearchHit

HITS_PER_CHAT = 3  # snippets shown per chat
HITS_READ_PER_CHAT = 8  # hits read per wanted chat (one busy chat must not hide the others)
MAX_HITS_READ = 400


@dataclass(frozen=True)
class Found:
    chat_id: str
    chat_title: str
    cursor: int
    role: str
    snippet: str
    created_at: str
    attachment: str | None


def found_in_message(hit: SearchHit) -> Found:
    return Found(hit.chat_id, hit.chat_title, hit.cursor, hit.role, hit.snippet, hit.created_at, None)


def found_in_file(hit: AttachmentHit) -> Found:
    return Found(hit.chat_id, hit.chat_title, hit.cursor, hit.role, hit.snippet, hit.created_at, hit.name)


def group_hits(
    found: Sequence[Found],
    terms: Sequence[str],
    limit: int,
    versions: Callable[[str, Sequence[int]], Mapping[int, OffPath]],
    *,
    truncated: bool,
) -> h.SearchResults:
    """At most `limit` chats, the one with the newest hit first. `versions(chat, cursors)`
    says which hits are off the current path; `truncated`: a source filled its read window."""
    by_chat: dict[str, list[Found]] = {}
    for item in sorted(found, key=lambda f: f.created_at, reverse=True):
        by_chat.setdefault(item.chat_id, []).append(item)
    groups = []
    for chat_id, items in list(by_chat.items())[:limit]:
        off = versions(chat_id, sorted({f.cursor for f in items}))
        ranked = sorted(items, key=lambda f: f.cursor in off)  # stable: newest first within each
        groups.append(
            h.SearchGroup(
                chat_id=chat_id,
                chat_title=items[0].chat_title,
                hit_count=len(items),
                more=truncated,
                hits=[_view(f, terms, off.get(f.cursor)) for f in ranked[:HITS_PER_CHAT]],
            )
        )
    return h.SearchResults(groups=groups)


def _view(f: Found, terms: Sequence[str], off: OffPath | None) -> h.SearchHitView:
    return h.SearchHitView(
        chat_id=f.chat_id,
        chat_title=f.chat_title,
        cursor=f.cursor,
        role="user" if f.role == "user" else "assistant",
        parts=[h.SnippetPart(text=t, hit=b) for t, b in segments(f.snippet, terms)],
        created_at=f.created_at,
        version=None if off is None else h.HitVersion(index=off.index, count=off.count, cursor=off.cursor),
        attachment=f.attachment,
    )

"""Chats and their messages (SPEC S5.1, S8): `ChatRepository`, the one repository of the chats
and messages tables, made of one part per job:

- app/store/chat_records.py: the chats (create, reserve, get, list, rename, delete, activity);
- app/store/chat_paths.py: reading along the tree (pages, paths, branch switching, siblings);
- app/store/chat_writes.py: writing a turn in one transaction, and imported chats;
- app/store/chat_search.py: full-text search over every chat;
- app/store/chat_rows.py: the records and row helpers they share.

Messages carry a per-chat cursor that only grows. A turn's messages are written by one
`append_turn` call in one transaction, so a failed, cancelled or killed turn leaves nothing.
Messages form a tree (edit and regenerate start branches, see app/store/branches.py); reads
for the UI and the model follow the active path from its leaf backwards.
"""

from __future__ import annotations

from app.store.chat_rows import MAX_TITLE as MAX_TITLE
from app.store.chat_rows import ChatActivity as ChatActivity
from app.store.chat_rows import ChatRecord as ChatRecord
from app.store.chat_rows import SearchHit as SearchHit
from app.store.chat_rows import StoredMessage as StoredMessage
from app.store.chat_search import ChatSearch


class ChatRepository(ChatSearch):
    """Every part together; satisfies the loop's TurnStore (app/contracts/turn.py)."""

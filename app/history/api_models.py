"""Request/response models of the history routes (search, export, import)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ExportFormat = Literal["md", "json", "html"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class ChatSearch(_Model):
    query: str = Field(min_length=1, max_length=200)
    limit: int = Field(default=30, ge=1, le=200)  # chats (groups) at most


class SnippetPart(_Model):
    text: str
    hit: bool  # this piece matched the query (shown highlighted)


class HitVersion(_Model):
    """The hit is on a version that is not the chat's current one (decision 246)."""

    index: int  # "version 2/3": 2
    count: int  # 3
    cursor: int  # the message whose versions these are (where the hit's path leaves the current)


class SearchHitView(_Model):
    chat_id: str
    chat_title: str
    cursor: int  # the message to open (scroll to) in that chat
    role: Literal["user", "assistant"]
    parts: list[SnippetPart]
    created_at: str
    version: HitVersion | None = None  # None: on the chat's current path
    attachment: str | None = None  # the match is in this attached file (its name), not the text


class SearchGroup(_Model):
    chat_id: str
    chat_title: str
    hit_count: int  # hits found in this chat (at least: see `more`)
    more: bool  # the search stopped reading before all of this chat's hits were counted
    hits: list[SearchHitView]  # the best few: current path first, then newest


class SearchResults(_Model):
    groups: list[SearchGroup]  # the chat with the newest hit first


class ChatExport(_Model):
    chat_id: str
    format: ExportFormat = "md"
    # The desktop window cannot download: the backend saves into the Downloads folder instead.
    save_to_downloads: bool = False
    # format "html": the standalone page the UI rendered (KaTeX and Mermaid run in the page,
    # frontend/src/model/htmlExport.ts); the backend names it and, for the window, saves it.
    html: str | None = Field(default=None, max_length=100_000_000)


class ExportedChat(_Model):
    filename: str
    mime: str
    content: str  # Markdown, JSON or HTML text (attachments are embedded in JSON as base64)
    saved_path: str | None = None  # where it was saved (save_to_downloads)


class ChatImport(_Model):
    content: str = Field(min_length=2, max_length=200_000_000)  # the JSON of a `chats.export`


# A plain file name: letters of any script, digits, space, dot, dash, underscore, parentheses;
# no separators, no leading dot (issue 27: a diagram or artifact saved from the window).
SAFE_FILENAME = r"^[\w()\-][\w .()\-]{0,119}$"


class FileSave(_Model):
    filename: str = Field(pattern=SAFE_FILENAME)
    content: str = Field(max_length=100_000_000)
    base64: bool = False  # content is base64 of the bytes (a PNG), else UTF-8 text


class SavedFile(_Model):
    saved_path: str

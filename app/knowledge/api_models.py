"""Request/response models of the knowledge routes (`knowledge.*`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from app.contracts.replies import ApiModel as _Model


class KbProgressView(_Model):
    done: int
    total: int
    current: str


class KbView(_Model):
    name: str
    roots: list[str]
    files: int
    chunks: int
    skipped: int
    indexed_at: str | None  # last finished index run (ISO-8601 UTC)
    pending: bool  # a run started and has not finished (running now, or cut short)
    progress: KbProgressView | None  # the run in progress in this process, if any
    embedded: int  # chunks with a vector of the chosen embeddings model (0 when off)


class KbList(_Model):
    bases: list[KbView]
    embeddings_model: str  # "" = lexical only
    embeddings_error: str  # the last background embedding failure ("" = none)


class KbSettings(_Model):
    """Embeddings for hybrid ranking: a model of a configured provider ("" and "" = off)."""

    embeddings_provider: str = Field(max_length=100)
    embeddings_model: str = Field(max_length=200)


class KbName(_Model):
    name: str = Field(max_length=200)


class KbRename(_Model):
    name: str = Field(max_length=200)
    new_name: str = Field(max_length=200)


class KbRoot(_Model):
    name: str = Field(max_length=200)
    path: str = Field(max_length=4096)


class KbAdd(_Model):
    path: str = Field(max_length=4096)
    name: str | None = Field(default=None, max_length=200)  # default: the folder's name


class KbRun(_Model):
    name: str
    indexed: int
    unchanged: int
    removed: int
    skipped: int


class KbAddResult(_Model):
    base: KbView
    run: KbRun


class KbReindex(_Model):
    name: str | None = Field(default=None, max_length=200)  # None: every base


class KbRuns(_Model):
    runs: list[KbRun]


class KbSearch(_Model):
    query: str = Field(max_length=1000)
    kb: str | None = Field(default=None, max_length=200)
    limit: int = Field(default=10, ge=1, le=100)


class KbHit(_Model):
    base: str
    path: str
    start_line: int
    end_line: int
    heading: str
    score: float
    text: str
    citation: str  # path:start-end


class KbHits(_Model):
    hits: list[KbHit]


class KbSkippedItem(_Model):
    path: str
    reason: str


class KbSkippedList(_Model):
    items: list[KbSkippedItem]


class KbResolve(_Model):
    """Paths as an answer cites them (`path` of `path:start-end`)."""

    paths: list[Annotated[str, Field(max_length=4096)]] = Field(max_length=100)


class KbLocate(_Model):
    path: str = Field(max_length=4096)  # absolute, as `knowledge.resolve` answered it


class KbLocated(_Model):
    base: str
    path: str  # the indexed file, absolute
    folder: str | None  # its folder, when inside a folder of the base ("Open folder")


class KbResolved(_Model):
    files: list[KbLocated | None]  # one per requested path, in order; None = not a knowledge file


class KbRead(_Model):
    path: str = Field(max_length=4096)
    start_line: int = Field(ge=1, le=100_000_000)
    end_line: int = Field(ge=1, le=100_000_000)


class KbExcerpt(_Model):
    """A cited file's text around the cited lines (line numbers as in the citation)."""

    file: KbLocated
    start_line: int  # the cited range, clamped to the file
    end_line: int
    first_line: int  # the number of lines[0]
    lines: list[str]
    total_lines: int

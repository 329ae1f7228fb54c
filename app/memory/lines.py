"""MEMORY.md's lines as the user sees them: why a line is there, forget it, un-forget it (issue 39).

`why` and `forget` take a text: the lines whose normalised text equals it, else those that
contain it. Forgetting removes the lines (a MEMORY.md version, author "forget") and records a
tombstone per line, so Dream and save_memory never write the fact back. Un-forgetting removes
the tombstone only (the line stays gone; the next Dream run may write it again). A revert that
brings a forgotten line back drops its tombstone: the user asked for that text again.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contracts.errors import say
from app.memory.memory_file import MemoryFile, MemoryText
from app.memory.provenance import LineSource, Provenance, Tombstone, Tombstones, fact_lines, line_key
from app.store.errors import NotFound

MAX_QUERY = 500


@dataclass(frozen=True)
class SourcedLine:
    line: str
    sources: list[LineSource]


@dataclass(frozen=True)
class Forgotten:
    lines: list[str]
    version_id: int | None


class MemoryLines:
    def __init__(self, memory: MemoryFile, provenance: Provenance, tombstones: Tombstones) -> None:
        self._memory = memory
        self._provenance = provenance
        self.tombstones = tombstones

    def matching(self, text: str) -> list[str]:
        key = _query(text)
        lines = fact_lines(self._memory.read().text)
        exact = [ln for ln in lines if line_key(ln) == key]
        return exact or [ln for ln in lines if key in line_key(ln)]

    def why(self, text: str) -> list[SourcedLine]:
        return [SourcedLine(ln, self._provenance.sources(ln)) for ln in self.matching(text)]

    def forget(self, text: str) -> Forgotten:
        lines = self.matching(text)
        if not lines:
            raise NotFound(say("memory.line_not_found", text=text.strip()[:80]))
        keys = {line_key(ln) for ln in lines}
        current = self._memory.read().text
        kept = [ln for ln in current.splitlines() if not (ln.strip() and line_key(ln) in keys)]
        note = "forgot: " + "; ".join(ln.strip() for ln in lines)[:200]
        written = self._memory.write("\n".join(kept) + "\n", "forget", note)
        self.tombstones.add(lines, written.version_id)
        return Forgotten(lines, written.version_id)

    def unforget(self, tombstone_id: int) -> Tombstone:
        removed = self.tombstones.remove(tombstone_id)
        if removed is None:
            raise NotFound(say("memory.forgotten_not_found", id=tombstone_id))
        return removed

    def after_revert(self, doc: MemoryText) -> None:
        """Lines a revert brought back are no longer forgotten."""
        self.tombstones.remove_keys(line_key(ln) for ln in fact_lines(doc.text))


def _query(text: str) -> str:
    key = line_key(text)
    if not key:
        raise ValueError(say("memory.line_query_blank"))
    if len(text) > MAX_QUERY:
        raise ValueError(say("memory.search_too_long", limit=MAX_QUERY))
    return key

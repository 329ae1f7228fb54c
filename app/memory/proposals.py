"""Dream's review inbox: proposed MEMORY.md texts that wait for accept or reject.

Accepting writes the proposal as a new MEMORY.md version (author "dream"). A proposal made
against a text that has changed since (a user edit, another accepted proposal) is refused with
Conflict, because applying it would silently undo that change; the user can reject it, and its
diff stays readable.
"""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass

from app.contracts.errors import say
from app.memory.memory_file import MemoryFile, MemoryText, sha256_text
from app.memory.provenance import Provenance, fact_lines
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id, validate_id
from app.store.timeutil import utc_now_iso


@dataclass(frozen=True)
class Proposal:
    id: str
    base_sha256: str
    text: str
    diff: str
    analysis: str
    status: str
    created_at: str
    decided_at: str | None


@dataclass(frozen=True)
class ProposedSource:
    """A message a proposed line came from: its chat (id and title), the message and the date
    the source was recorded (when Dream made the proposal)."""

    chat_id: str
    chat_title: str
    cursors: tuple[int, ...]
    message: str  # the text of the first of `cursors` (an excerpt)
    created_at: str


@dataclass(frozen=True)
class ProposedLine:
    line: str
    sources: builtins.list[ProposedSource]  # empty: no message shares its words (none recorded)


def added_lines(diff: str) -> builtins.list[str]:
    """The fact lines a proposal adds, read from its unified diff."""
    added = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return fact_lines("\n".join(added))


def proposed_lines(proposal: Proposal, provenance: Provenance) -> builtins.list[ProposedLine]:
    """Each line the proposal adds with the sources Dream recorded when it made the proposal
    (version None, recorded at or after the proposal's time); sources of an earlier run that
    wrote the same line are not this proposal's."""
    out: builtins.list[ProposedLine] = []
    for line in added_lines(proposal.diff):
        sources = []
        for s in provenance.sources(line):
            if s.version_id is not None or s.created_at < proposal.created_at:
                continue
            title, message = provenance.message(s.chat_id, s.cursors[0] if s.cursors else None)
            sources.append(ProposedSource(s.chat_id, title, s.cursors, message, s.created_at))
        out.append(ProposedLine(line, sources))
    return out


class ProposalRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, base_sha256: str, text: str, diff: str, analysis: str) -> Proposal:
        proposal = Proposal(new_id(), base_sha256, text, diff, analysis, "pending", utc_now_iso(), None)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO dream_proposals (id, base_sha256, text, diff, analysis, status, created_at)"
                " VALUES (?,?,?,?,?,?,?)",
                (proposal.id, base_sha256, text, diff, analysis, "pending", proposal.created_at),
            )
        return proposal

    def list(self, *, pending_only: bool = True) -> builtins.list[Proposal]:
        sql = "SELECT * FROM dream_proposals"
        if pending_only:
            sql += " WHERE status = 'pending'"
        return [_proposal(r) for r in self._db.query(sql + " ORDER BY created_at DESC")]

    def get(self, proposal_id: str) -> Proposal:
        pid = validate_id(proposal_id, "proposal id")
        rows = self._db.query("SELECT * FROM dream_proposals WHERE id = ?", (pid,))
        if not rows:
            raise NotFound(say("memory.proposal_not_found", id=pid))
        return _proposal(rows[0])

    def accept(self, proposal_id: str, memory: MemoryFile) -> MemoryText:
        proposal = self._pending(proposal_id)
        if sha256_text(memory.read().text) != proposal.base_sha256:
            raise Conflict(
                "MEMORY.md changed since Dream proposed this; reject it (Dream will look again later)"
            )
        written = memory.write(proposal.text, "dream", "accepted from the review inbox")
        self._decide(proposal.id, "accepted")
        return written

    def reject(self, proposal_id: str) -> None:
        self._decide(self._pending(proposal_id).id, "rejected")

    def _pending(self, proposal_id: str) -> Proposal:
        proposal = self.get(proposal_id)
        if proposal.status != "pending":
            raise Conflict(say("memory.proposal_done", id=proposal.id, status=proposal.status))
        return proposal

    def _decide(self, pid: str, status: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE dream_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
                (status, utc_now_iso(), pid),
            )


def _proposal(row: sqlite3.Row) -> Proposal:
    return Proposal(
        id=row["id"],
        base_sha256=row["base_sha256"],
        text=row["text"],
        diff=row["diff"],
        analysis=row["analysis"],
        status=row["status"],
        created_at=row["created_at"],
        decided_at=row["decided_at"],
    )

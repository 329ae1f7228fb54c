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

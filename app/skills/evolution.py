"""Self-evolution (SPEC S7.10, off by default): recurring successful workflows become Skill
*proposals* the user approves or rejects; nothing is ever applied automatically.

- Evidence: after a stored turn with ≥ 2 tool calls and no failed or denied call, the workflow
  fingerprint (the sequence of tool names, consecutive repeats collapsed) is recorded with the
  user's request, redacted (home folder → `~`, secret-looking text → `***`) and cut short.
- When a fingerprint has evidence from `threshold` (default 2) different turns and no proposal
  yet, a restricted evolver drafts one: ONE model call, no tools, only the redacted evidence.
- Approve re-validates the draft, snapshots an existing agent Skill of that name, and publishes
  into the agent source; reject just marks it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from app.contracts.messages import Message
from app.skills.redact import Redactor
from app.store.db import Database
from app.store.migrations import run_script
from app.store.timeutil import utc_now_iso

DEFAULT_THRESHOLD = 2
MAX_REQUEST_CHARS = 300
MAX_EXAMPLES = 3

SCHEMA = """
CREATE TABLE skill_evidence (
    id           INTEGER PRIMARY KEY,
    fingerprint  TEXT NOT NULL,
    turn_id      TEXT NOT NULL UNIQUE,
    request      TEXT NOT NULL,
    tools_json   TEXT NOT NULL CHECK (json_valid(tools_json)),
    created_at   TEXT NOT NULL
);
CREATE INDEX skill_evidence_fp ON skill_evidence(fingerprint);
CREATE TABLE skill_proposals (
    id           TEXT PRIMARY KEY,
    fingerprint  TEXT NOT NULL UNIQUE,
    status       TEXT NOT NULL CHECK (status IN ('drafting', 'pending', 'approved', 'rejected', 'failed')),
    name         TEXT NOT NULL DEFAULT '',
    content      TEXT NOT NULL DEFAULT '',
    reason       TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
"""


def migrate(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA)


@dataclass(frozen=True)
class Evidence:
    fingerprint: str
    tools: tuple[str, ...]
    request: str


@dataclass(frozen=True)
class Proposal:
    id: str
    fingerprint: str
    status: str
    name: str
    content: str
    reason: str
    created_at: str


_SECRETISH = re.compile(r"(?i)\b(sk|pk|ghp|xox[bp])[-_][A-Za-z0-9_-]{8,}|\b[A-Za-z0-9+/]{32,}={0,2}")


def evidence_of(messages: Sequence[Message], redact: Redactor) -> Evidence | None:
    """The turn's evidence, or None when it does not qualify (< 2 calls, or a call failed)."""
    calls = [c.name for m in messages if m.role == "assistant" for c in m.tool_calls]
    if len(calls) < 2:
        return None
    for m in messages:
        if m.role == "tool" and (m.content.startswith("Error:") or m.content.startswith("The user denied")):
            return None
    collapsed: list[str] = []
    for name in calls:
        if not collapsed or collapsed[-1] != name:
            collapsed.append(name)
    fingerprint = hashlib.sha256("\x1f".join(collapsed).encode()).hexdigest()[:16]
    user = next((m.content for m in messages if m.role == "user"), "")
    request = _SECRETISH.sub("***", redact(" ".join(user.split())))[:MAX_REQUEST_CHARS]
    return Evidence(fingerprint, tuple(collapsed), request)


class EvolutionRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def record(self, turn_id: str, evidence: Evidence, threshold: int) -> bool:
        """Store the evidence; True when the fingerprint just became due for a proposal."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO skill_evidence (fingerprint, turn_id, request, tools_json, created_at)"
                " VALUES (?,?,?,?,?)",
                (evidence.fingerprint, turn_id, evidence.request, json.dumps(evidence.tools), utc_now_iso()),
            )
            seen = conn.execute(
                "SELECT COUNT(*) FROM skill_evidence WHERE fingerprint = ?", (evidence.fingerprint,)
            ).fetchone()[0]
            if seen < threshold:
                return False
            now = utc_now_iso()
            cur = conn.execute(
                "INSERT OR IGNORE INTO skill_proposals (id, fingerprint, status, created_at, updated_at)"
                " VALUES (?,?,'drafting',?,?)",
                (uuid.uuid4().hex, evidence.fingerprint, now, now),
            )
            return cur.rowcount == 1

    def examples(self, fingerprint: str) -> tuple[tuple[str, ...], list[str]]:
        rows = self._db.query(
            "SELECT request, tools_json FROM skill_evidence WHERE fingerprint = ? ORDER BY id DESC LIMIT ?",
            (fingerprint, MAX_EXAMPLES),
        )
        tools = tuple(json.loads(rows[0]["tools_json"])) if rows else ()
        return tools, [r["request"] for r in rows]

    def set_draft(self, fingerprint: str, status: str, name: str, content: str, reason: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE skill_proposals SET status = ?, name = ?, content = ?, reason = ?, updated_at = ?"
                " WHERE fingerprint = ?",
                (status, name, content, reason, utc_now_iso(), fingerprint),
            )

    def forget_draft(self, fingerprint: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "DELETE FROM skill_proposals WHERE fingerprint = ? AND status = 'drafting'", (fingerprint,)
            )

    def set_status(self, proposal_id: str, status: str, reason: str = "") -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE skill_proposals SET status = ?, reason = ?, updated_at = ? WHERE id = ?",
                (status, reason, utc_now_iso(), proposal_id),
            )

    def list(self) -> list[Proposal]:
        rows = self._db.query("SELECT * FROM skill_proposals ORDER BY created_at DESC, id")
        return [_proposal(r) for r in rows]

    def get(self, proposal_id: str) -> Proposal | None:
        rows = self._db.query("SELECT * FROM skill_proposals WHERE id = ?", (proposal_id,))
        return _proposal(rows[0]) if rows else None


def _proposal(r: sqlite3.Row) -> Proposal:
    return Proposal(
        r["id"], r["fingerprint"], r["status"], r["name"], r["content"], r["reason"], r["created_at"]
    )


EVOLVER_PROMPT = """\
You turn a workflow the user repeated into a reusable Skill for an AI agent. Reply with ONLY
the complete SKILL.md: YAML frontmatter between two '---' lines with `name` (lowercase letters,
digits and single hyphens, at most 64 characters) and `description` (what it does and when to
use it), then Markdown instructions. No code fences, no commentary."""


def evolver_messages(tools: Sequence[str], requests: Sequence[str]) -> tuple[Message, Message]:
    examples = "\n".join(f"- {r}" for r in requests)
    user = (
        f"Tool sequence that succeeded each time: {' → '.join(tools)}\n"
        f"Example requests (redacted):\n{examples}\n\nWrite the SKILL.md."
    )
    return Message(role="system", content=EVOLVER_PROMPT), Message(role="user", content=user)


def clean_draft(text: str) -> str:
    """Strip a Markdown code fence the model may still have added."""
    body = text.strip()
    fence = re.match(r"^```[a-zA-Z]*\n(.*)\n```$", body, re.S)
    return (fence.group(1) if fence else body).strip() + "\n"

"""AgentStore: the `agents` and `agent_chats` tables. The default agent is not a row: it is
today's behaviour (SOUL.md, everything allowed, the app's model and approval mode) and always
exists under the id and name `default`."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterable

from app.agents.model import DEFAULT_AGENT, AgentRecord, AgentSpec
from app.contracts.agents import DEFAULT_AGENT_ID, AgentScope
from app.contracts.errors import ApiFailure, say
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.timeutil import utc_now_iso

MAX_AGENTS = 1000


def _record(row: sqlite3.Row) -> AgentRecord:
    return AgentRecord(
        id=row["id"],
        spec=AgentSpec.model_validate_json(row["spec"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


class AgentStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        # Parsed specs by (id, updated_at): the picker lists every agent on each New chat, and
        # validating 50 specs each time was most of its cost. Another process's change has a
        # new updated_at, so it is read again.
        self._parsed: dict[tuple[str, str], AgentRecord] = {}
        self._seen: set[str] = set()  # ids of the parsed agents (a set: New chat asks each time)
        # Each agent's turn scope by (id, updated_at): a turn reads one short row instead of the
        # spec (up to 500 Skill names) and builds no new name sets (AgentsCapability.scope_of_chat).
        self._scopes: dict[tuple[str, str], AgentScope] = {}

    # ---- agents --------------------------------------------------------------------------------

    def list(self) -> list[AgentRecord]:
        """The default agent first, then the others by name."""
        rows = self._db.query("SELECT id, updated_at FROM agents ORDER BY name COLLATE NOCASE, id")
        keys = [(r["id"], r["updated_at"]) for r in rows]
        missing = [k[0] for k in keys if k not in self._parsed]
        if missing:
            marks = ",".join("?" * len(missing))
            for row in self._db.query(f"SELECT * FROM agents WHERE id IN ({marks})", missing):
                self._parsed[(row["id"], row["updated_at"])] = _record(row)
            live = set(keys)
            self._parsed = {k: v for k, v in self._parsed.items() if k in live}
            self._seen = {k[0] for k in self._parsed}
        return [DEFAULT_AGENT, *(self._parsed[k] for k in keys if k in self._parsed)]

    def generation(self) -> int:
        """Moves with every change of an agent by any process (schema step 3's triggers): the
        picker's cached list is still good while this has not moved."""
        rows = self._db.query("SELECT n FROM agents_generation")
        return int(rows[0]["n"]) if rows else 0

    def get(self, agent_id: str) -> AgentRecord:
        if agent_id == DEFAULT_AGENT_ID:
            return DEFAULT_AGENT
        rows = self._db.query("SELECT * FROM agents WHERE id = ?", (agent_id[:64],))
        if not rows:
            raise NotFound(say("agent.not_found", id=agent_id[:64]))
        key = (rows[0]["id"], rows[0]["updated_at"])
        if key not in self._parsed:
            self._parsed[key] = _record(rows[0])
            self._seen.add(key[0])
        return self._parsed[key]

    def version_of(self, agent_id: str) -> str | None:
        """The agent's `updated_at` (None: no such agent), without reading its spec."""
        rows = self._db.query("SELECT updated_at FROM agents WHERE id = ?", (agent_id[:64],))
        return str(rows[0]["updated_at"]) if rows else None

    def scope(self, agent_id: str, version: str | None) -> AgentScope:
        """The agent's scope as of `version` (`version_of`, `chat_agent`); NotFound when None."""
        if version is None:
            raise NotFound(say("agent.not_found", id=agent_id[:64]))
        found = self._scopes.get((agent_id, version))
        if found is None:
            record = self.get(agent_id)  # changed again since `version` was read: the newer one
            found = record.scope()
            self._scopes = {k: v for k, v in self._scopes.items() if k[0] != record.id}
            self._scopes[(record.id, record.updated_at)] = found
        return found

    def seen(self, agent_id: str) -> bool:
        """Whether this process has read the agent (no database work). It may have been removed
        since by another process: the turn then refuses to run (AgentsCapability.scope_of_chat)."""
        return agent_id == DEFAULT_AGENT_ID or agent_id in self._seen

    def find(self, ref: str) -> AgentRecord:
        """By id or (case-insensitive) name: what the CLI's NAME arguments take."""
        if ref.strip().casefold() == DEFAULT_AGENT_ID:
            return DEFAULT_AGENT
        rows = self._db.query(
            "SELECT * FROM agents WHERE id = ? OR name = ? COLLATE NOCASE", (ref[:64], ref.strip()[:64])
        )
        if not rows:
            raise NotFound(say("agent.no_such_name", name=ref[:64]))
        return _record(rows[0])

    def add(self, spec: AgentSpec) -> AgentRecord:
        _not_default_name(spec)
        now = utc_now_iso()
        agent_id = uuid.uuid4().hex[:12]
        try:
            with self._db.transaction() as conn:
                (count,) = conn.execute("SELECT COUNT(*) FROM agents").fetchone()
                if count >= MAX_AGENTS:
                    raise ApiFailure("invalid", say("agent.too_many", limit=MAX_AGENTS))
                conn.execute(
                    "INSERT INTO agents (id, name, spec, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (agent_id, spec.name, spec.model_dump_json(), now, now),
                )
        except sqlite3.IntegrityError:
            raise Conflict(say("agent.exists", name=spec.name)) from None
        return self.get(agent_id)

    def edit(self, agent_id: str, spec: AgentSpec) -> AgentRecord:
        _not_builtin(agent_id)
        _not_default_name(spec)
        try:
            with self._db.transaction() as conn:
                changed = conn.execute(
                    "UPDATE agents SET name = ?, spec = ?, updated_at = ? WHERE id = ?",
                    (spec.name, spec.model_dump_json(), utc_now_iso(), agent_id[:64]),
                ).rowcount
        except sqlite3.IntegrityError:
            raise Conflict(say("agent.exists", name=spec.name)) from None
        if not changed:
            raise NotFound(say("agent.not_found", id=agent_id[:64]))
        return self.get(agent_id)

    def remove(self, agent_id: str) -> None:
        """The agent's chats go back to the default agent (their rows are dropped)."""
        _not_builtin(agent_id)
        with self._db.transaction() as conn:
            if not conn.execute("DELETE FROM agents WHERE id = ?", (agent_id[:64],)).rowcount:
                raise NotFound(say("agent.not_found", id=agent_id[:64]))
            conn.execute("DELETE FROM agent_chats WHERE agent_id = ?", (agent_id,))
        self._parsed = {k: v for k, v in self._parsed.items() if k[0] != agent_id}
        self._scopes = {k: v for k, v in self._scopes.items() if k[0] != agent_id}
        self._seen.discard(agent_id)

    def free_name(self, base: str) -> str:
        """`base`, or `base 2`, `base 3`, … whichever is not taken (a duplicate's name)."""
        taken = {r["name"].casefold() for r in self._db.query("SELECT name FROM agents")}
        taken.add(DEFAULT_AGENT_ID)
        if base.casefold() not in taken:
            return base
        n = 2
        while f"{base} {n}".casefold() in taken:
            n += 1
        return f"{base} {n}"[:64]

    # ---- chats ---------------------------------------------------------------------------------

    def agent_of(self, chat_id: str) -> str:
        rows = self._db.query("SELECT agent_id FROM agent_chats WHERE chat_id = ?", (chat_id,))
        return str(rows[0]["agent_id"]) if rows else DEFAULT_AGENT_ID

    def chat_agent(self, chat_id: str) -> tuple[str, str | None]:
        """The chat's agent and that agent's `updated_at` (None: its row is gone) in one read."""
        rows = self._db.query(
            "SELECT c.agent_id, a.updated_at FROM agent_chats c LEFT JOIN agents a ON a.id = c.agent_id"
            " WHERE c.chat_id = ?",
            (chat_id,),
        )
        if not rows:
            return DEFAULT_AGENT_ID, None
        version = rows[0]["updated_at"]
        return str(rows[0]["agent_id"]), None if version is None else str(version)

    def agents_of(self, chat_ids: Iterable[str]) -> dict[str, str]:
        ids = list(chat_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.query(f"SELECT chat_id, agent_id FROM agent_chats WHERE chat_id IN ({marks})", ids)
        return {r["chat_id"]: r["agent_id"] for r in rows}

    def assign(self, chat_id: str, agent_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO agent_chats (chat_id, agent_id, assigned_at) VALUES (?,?,?)"
                " ON CONFLICT(chat_id) DO UPDATE SET agent_id = excluded.agent_id,"
                " assigned_at = excluded.assigned_at",
                (chat_id, agent_id, utc_now_iso()),
            )

    def assign_if_unset(self, chat_id: str, agent_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO agent_chats (chat_id, agent_id, assigned_at) VALUES (?,?,?)",
                (chat_id, agent_id, utc_now_iso()),
            )

    def last_used(self) -> str:
        """The agent of the chat assigned most recently (that still exists), else the default."""
        rows = self._db.query(
            "SELECT c.agent_id FROM agent_chats c LEFT JOIN agents a ON a.id = c.agent_id"
            " WHERE a.id IS NOT NULL OR c.agent_id = ? ORDER BY c.assigned_at DESC LIMIT 1",
            (DEFAULT_AGENT_ID,),
        )
        return str(rows[0]["agent_id"]) if rows else DEFAULT_AGENT_ID


def _not_builtin(agent_id: str) -> None:
    if agent_id == DEFAULT_AGENT_ID:
        raise ApiFailure("invalid", say("agent.default_fixed"))


def _not_default_name(spec: AgentSpec) -> None:
    if spec.name.casefold() == DEFAULT_AGENT_ID:
        raise Conflict(say("agent.exists", name=spec.name))

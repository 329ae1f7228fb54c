"""Dream (SPEC S5.3): distil new chat history into MEMORY.md.

One run: find chats with messages past their Dream cursor → phase 1 asks the model what to
add, update or remove given the current MEMORY.md → phase 2 asks for the complete new
MEMORY.md → write it (a version, author "dream") or, in review mode, store it as a proposal in
the inbox. Cursors advance only after that write succeeded, in one transaction; a failed model
call, an empty answer or a crash leaves the cursors where they were, so the history is read
again next time. A run with no new history makes no model call.

Chats of an agent with its own memory (issue 38) are never read: their cursors move past their
history instead (`DreamDeps.kept_out`), so the shared MEMORY.md never learns what was said to
that agent, even if the agent later goes back to the shared memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from app.contracts.messages import Message
from app.contracts.provider import Provider, ProviderError
from app.memory.llm_call import complete, strip_fence
from app.memory.memory_file import MemoryFile, MemoryFileError, sha256_text, unified_diff
from app.memory.proposals import ProposalRepository
from app.memory.provenance import NewLine, Provenance, Tombstones, best_messages, fact_lines, line_key
from app.memory.transcript import message_chars, render
from app.store.chats import ChatRepository, StoredMessage
from app.store.db import Database

_log = logging.getLogger(__name__)

MAX_BATCH_CHARS = 60_000  # one run reads at most this much new history; the rest waits
MAX_BATCH_MESSAGES = 2_000

PHASE1 = """\
You curate the long-term memory of a personal AI assistant. Below are the current MEMORY.md and
new conversation history from one or more chats. Analyse which durable facts about the user,
their preferences, projects, environment and decisions should be ADDED, which existing entries
should be UPDATED, and which are now wrong or obsolete and should be REMOVED. Ignore small talk
and one-off details. Answer with a short analysis report (bullet points per action)."""

PHASE2 = """\
You write the complete new MEMORY.md of a personal AI assistant: apply the analysis report to
the current MEMORY.md. Keep it concise, organised under Markdown headings, one fact per bullet.
Answer with the complete new file content only (no commentary, no code fences)."""

DreamStatus = Literal["nothing_new", "no_model", "applied", "proposed", "unchanged", "failed"]


@dataclass(frozen=True)
class ChatBatch:
    chat_id: str
    title: str
    messages: tuple[Message, ...]
    to_cursor: int
    cursors: tuple[int, ...] = ()  # each message's cursor (where a distilled line came from)


@dataclass(frozen=True)
class DreamOutcome:
    status: DreamStatus
    message: str
    chats: tuple[str, ...] = ()
    version_id: int | None = None
    proposal_id: str | None = None
    diff: str = ""
    model_calls: int = 0


@dataclass
class DreamDeps:
    db: Database
    chats: ChatRepository
    memory: MemoryFile
    proposals: ProposalRepository
    provider_for: Callable[[str], Provider]
    model_choice: Callable[[], tuple[str, str] | None]  # (provider_id, model) or None
    review_mode: Callable[[], bool]
    provenance: Provenance
    tombstones: Tombstones
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    on_proposed: Callable[[str], None] = lambda _proposal_id: None  # the Inbox lists it
    # Of these chat ids, those whose agent keeps its own memory (never distilled here).
    kept_out: Callable[[list[str]], set[str]] = lambda _chat_ids: set()


class DreamCursors:
    def __init__(
        self,
        db: Database,
        chats: ChatRepository,
        kept_out: Callable[[list[str]], set[str]] = lambda _chat_ids: set(),
    ) -> None:
        self._db = db
        self._chats = chats
        self._kept_out = kept_out

    def pending(self, max_chars: int = MAX_BATCH_CHARS) -> list[ChatBatch]:
        """New history per chat (oldest chats first), capped at about `max_chars` in total."""
        rows = self._db.query(
            "SELECT c.id, c.title, COALESCE(d.cursor, 0) AS done, MAX(m.cursor) AS last"
            " FROM chats c JOIN messages m ON m.chat_id = c.id"
            " LEFT JOIN dream_cursors d ON d.chat_id = c.id"
            " GROUP BY c.id HAVING last > done ORDER BY MIN(m.id)"
        )
        private = self._kept_out([r["id"] for r in rows]) if rows else set()
        if private:
            self._skip([(r["id"], int(r["last"])) for r in rows if r["id"] in private])
            rows = [r for r in rows if r["id"] not in private]
        batches: list[ChatBatch] = []
        budget = max_chars
        for row in rows:
            if budget <= 0:
                break
            # A chat read for the first time may be huge: fetch a bounded slice, the rest waits.
            stored = self._chats.stored_messages(
                row["id"], from_cursor=int(row["done"]) + 1, limit=MAX_BATCH_MESSAGES
            )
            taken: list[StoredMessage] = []
            for s in stored:
                if taken and budget <= 0:
                    break
                taken.append(s)
                budget -= message_chars(s.message)
            if taken:
                batches.append(
                    ChatBatch(
                        row["id"],
                        row["title"],
                        tuple(s.message for s in taken),
                        taken[-1].cursor,
                        tuple(s.cursor for s in taken),
                    )
                )
        return batches

    def advance(self, batches: list[ChatBatch]) -> None:
        self._skip([(b.chat_id, b.to_cursor) for b in batches])

    def _skip(self, cursors: list[tuple[str, int]]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT INTO dream_cursors (chat_id, cursor) VALUES (?, ?)"
                " ON CONFLICT(chat_id) DO UPDATE SET cursor = MAX(cursor, excluded.cursor)",
                cursors,
            )

    def get(self, chat_id: str) -> int:
        rows = self._db.query("SELECT cursor FROM dream_cursors WHERE chat_id = ?", (chat_id,))
        return int(rows[0][0]) if rows else 0


async def _ask(provider: Provider, model: str, system: str, user: str) -> str:
    messages = [Message(role="system", content=system), Message(role="user", content=user)]
    return (await complete(provider, model, messages)).strip()


def _history_text(batches: list[ChatBatch]) -> str:
    return "\n\n".join(f"=== Chat “{b.title or b.chat_id}” ===\n{render(b.messages)}" for b in batches)


def _forgotten_block(lines: list[str]) -> str:
    if not lines:
        return ""
    listed = "\n".join(f"- {ln}" for ln in lines)
    return "\n\nForgotten by the user (never add these facts back, nor rewordings of them):\n" + listed


class Dream:
    def __init__(self, deps: DreamDeps) -> None:
        self._d = deps
        self.cursors = DreamCursors(deps.db, deps.chats, deps.kept_out)

    async def run_once(self, model: tuple[str, str] | None = None) -> DreamOutcome:
        """One run; `model` = (provider_id, model), default the app's last chosen model."""
        async with self._d.lock:  # never two runs at once (timer and `dream --now`)
            return await self._run(model)

    async def _run(self, model: tuple[str, str] | None) -> DreamOutcome:
        batches = self.cursors.pending()
        if not batches:
            return DreamOutcome("nothing_new", "No new chat history since the last Dream run.")
        choice = model or self._d.model_choice()
        if choice is None:
            return DreamOutcome("no_model", "No model chosen yet: Dream needs a provider and a model.")
        try:
            current = self._d.memory.read().text
        except MemoryFileError as exc:
            return DreamOutcome("failed", str(exc))
        provider = self._d.provider_for(choice[0])
        chats = tuple(b.chat_id for b in batches)
        memory_block = current.strip() or "(empty)"
        history = _history_text(batches)
        forgotten = _forgotten_block([t.line for t in self._d.tombstones.entries()])
        try:
            analysis = await _ask(
                provider,
                choice[1],
                PHASE1,
                f"Current MEMORY.md:\n{memory_block}{forgotten}\n\nNew history:\n\n{history}",
            )
            if not analysis:
                return DreamOutcome("failed", "The model returned an empty analysis; nothing changed.", chats)
            report = f"Current MEMORY.md:\n{memory_block}{forgotten}\n\nAnalysis report:\n{analysis}"
            new_text = strip_fence(await _ask(provider, choice[1], PHASE2, report))
        except ProviderError as exc:
            return DreamOutcome("failed", f"The model call failed: {exc.message}", chats)
        if not new_text:
            return DreamOutcome(
                "failed", "The model returned an empty MEMORY.md; nothing changed.", chats, model_calls=2
            )
        # A forgotten fact the model wrote back anyway (or reworded) is dropped here.
        new_text, dropped = self._d.tombstones.drop_forgotten(current, new_text)
        if dropped:
            _log.info("dream: %d forgotten line(s) were not written back", len(dropped))
        return self._store(current, new_text, analysis, batches)

    def _record_sources(
        self, current: str, new_text: str, batches: list[ChatBatch], version: int | None
    ) -> None:
        """Each line the run adds gets its source: the user message(s) sharing the most words
        with it, else every message of the run's chats (the run read them all)."""
        have = {line_key(ln) for ln in fact_lines(current)}
        added = [ln for ln in fact_lines(new_text) if line_key(ln) not in have]
        if not added:
            return
        said = [
            (b.chat_id, cursor, m.content)
            for b in batches
            for m, cursor in zip(b.messages, b.cursors, strict=False)
            if m.role == "user"
        ]
        lines: list[NewLine] = []
        for ln in added:
            found = best_messages(ln, said) or [(b.chat_id, c) for b in batches for c in b.cursors]
            for chat in dict.fromkeys(chat for chat, _ in found):
                lines.append(NewLine(ln, chat, tuple(c for ch, c in found if ch == chat)))
        self._d.provenance.record("dream", version, lines)

    def _store(self, current: str, new_text: str, analysis: str, batches: list[ChatBatch]) -> DreamOutcome:
        chats = tuple(b.chat_id for b in batches)
        if new_text.strip() == current.strip():
            self.cursors.advance(batches)
            return DreamOutcome("unchanged", "MEMORY.md is already up to date.", chats, model_calls=2)
        if self._d.review_mode():
            proposal = self._d.proposals.add(
                sha256_text(current), new_text, unified_diff(current, new_text + "\n"), analysis
            )
            self._record_sources(current, new_text, batches, None)  # found once it is accepted
            self.cursors.advance(batches)
            self._d.on_proposed(proposal.id)
            return DreamOutcome(
                "proposed",
                "A MEMORY.md change waits in the inbox for review.",
                chats,
                proposal_id=proposal.id,
                diff=proposal.diff,
                model_calls=2,
            )
        try:
            written = self._d.memory.write(new_text, "dream", f"from {len(chats)} chat(s)")
        except (MemoryFileError, OSError, ValueError) as exc:
            return DreamOutcome("failed", f"MEMORY.md was not written: {exc}", chats, model_calls=2)
        self.cursors.advance(batches)
        self._record_sources(current, new_text, batches, written.version_id)
        diff = unified_diff(current, self._d.memory.read().text)
        return DreamOutcome(
            "applied", "MEMORY.md updated.", chats, version_id=written.version_id, diff=diff, model_calls=2
        )


class DreamScheduler:
    """Runs Dream every `interval_s()` seconds while `enabled()`; errors are logged, never raised."""

    def __init__(
        self,
        dream: Dream,
        enabled: Callable[[], bool],
        interval_s: Callable[[], float],
        on_outcome: Callable[[DreamOutcome], None] | None = None,
    ) -> None:
        self._dream = dream
        self._enabled = enabled
        self._interval_s = interval_s
        self._on_outcome = on_outcome
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="dream")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self._interval_s()))
            if not self._enabled():
                continue
            try:
                outcome = await self._dream.run_once()
                _log.info("dream: %s (%s)", outcome.status, outcome.message)
                if self._on_outcome is not None:
                    self._on_outcome(outcome)
            except asyncio.CancelledError:
                raise
            except Exception:  # a background job must survive one bad run
                _log.warning("dream run failed", exc_info=True)

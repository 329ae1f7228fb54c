"""The memory capability: tools, MEMORY.md in the prompt, consolidation and Dream (SPEC S5).

- `toolset`: explicit-memory tools, save_memory, notes and todos.
- `prompt_section`: MEMORY.md under "Information you already remember" (the persona, SOUL.md,
  comes first from app/core/prompt.py).
- `wrap_store`: the model sees the latest consolidation summary + messages from its
  keep_from_cursor on.
- `after_turn`: schedules consolidation as a background task (never delays `turn_done`).
- `start`/`aclose`: the Dream timer (only in long-lived surfaces; `CASHCODE_DREAM=off` stops it).

Whose memory a turn reads and writes is decided here, once, from the turn's agent scope
(`memory_owner`): an agent whose memory scope is "own" (issue 38) gets the same tools and prompt
section over its own book (`agents/<id>/MEMORY.md`, its versions and explicit memories); notes
and todos stay shared (they are the user's lists, not what the assistant remembers).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.contracts.agents import AgentDirectory, AgentScope
from app.contracts.capability import Capability, Handler, ListedTool
from app.contracts.events import Event
from app.contracts.messages import Message
from app.contracts.provider import Provider
from app.contracts.turn import ToolBox, TurnSpec, TurnStore
from app.memory.events import ContextLeftOut, MemoryProposed
from app.memory.memory_file import MemoryFileError
from app.memory.memory_tools import (
    ForgetMemoryTool,
    MemorySourceTool,
    RememberMemoryTool,
    SaveMemoryTool,
    SearchMemoriesTool,
    UpdateMemoryTool,
)
from app.memory.notes import NotesRepository
from app.memory.notes_tools import NOTES_TOOLS
from app.memory.service import MemoryBook, MemoryServices, build_services
from app.memory.summaries import ConsolidatedStore
from app.memory.tool_base import ToolSet
from app.settings.user_settings import SettingsStore
from app.store.chats import ChatRepository
from app.store.db import Database

_log = logging.getLogger(__name__)

MEMORY_HEADING = "## Information you already remember"
CLOSE_GRACE_S = 10.0


def memory_owner(scope: AgentScope) -> str:
    """Whose memory a turn uses: "" the shared one, else its agent's own."""
    return scope.agent_id if scope.memory == "own" else ""


def memory_tools(book: MemoryBook, notes: NotesRepository, *, own: bool = False) -> ToolSet:
    return ToolSet(
        [
            RememberMemoryTool(book.memories),
            SearchMemoriesTool(book.memories),
            UpdateMemoryTool(book.memories),
            ForgetMemoryTool(book.memories, book.lines),
            MemorySourceTool(book.lines),
            SaveMemoryTool(book.memory, book.provenance, book.tombstones, own=own),
            *(cls(notes) for cls in NOTES_TOOLS),
        ]
    )


class MemoryCapability(Capability):
    name = "memory"

    def __init__(
        self,
        db: Database,
        chats: ChatRepository,
        data_dir: Path,
        settings: SettingsStore,
        provider_for: Callable[[str], Provider],
        env: Mapping[str, str],
        publish: Callable[[Event], None] | None = None,
        directory: Callable[[], AgentDirectory | None] = lambda: None,
    ) -> None:
        self._publish = publish
        self.services: MemoryServices = build_services(
            db, chats, data_dir, settings, provider_for, env, directory
        )
        if publish is not None:
            self.services.on_proposed = lambda proposal_id: publish(MemoryProposed(proposal_id=proposal_id))
        self._tools = memory_tools(self.services.shared, self.services.notes)
        self._own_tools: dict[str, ToolSet] = {}  # per agent with its own memory, built on first use
        self._tasks: set[asyncio.Task[object]] = set()

    def routes(self) -> Mapping[str, Handler]:
        from app.memory.handlers import MemoryHandlers  # route code and models: on first use

        return MemoryHandlers(self.services).table()

    def toolset(self, spec: TurnSpec) -> ToolBox | None:
        owner = memory_owner(spec.scope)
        if not owner:
            return self._tools
        tools = self._own_tools.get(owner)
        if tools is None:
            book = self.services.book(owner)
            tools = self._own_tools[owner] = memory_tools(book, self.services.notes, own=True)
        return tools

    def listed_tools(self) -> list[ListedTool]:
        return [ListedTool.of(t) for t in self._tools.tools()]

    def prompt_section(self, spec: TurnSpec) -> str | None:
        try:
            text = self.services.book(memory_owner(spec.scope)).memory.read().text.strip()
        except MemoryFileError as exc:
            # The turn goes on without long-term memory; the Memory view shows the problem.
            _log.warning("MEMORY.md not used in this turn: %s", exc)
            return None
        return f"{MEMORY_HEADING}\n{text}" if text else None

    def wrap_store(self, store: TurnStore) -> TurnStore:
        s = self.services

        def threshold() -> int:
            return s.settings.load().memory_consolidation_chars

        def left_out(chat_id: str) -> None:
            if self._publish is not None:
                self._publish(ContextLeftOut(chat_id=chat_id))

        return ConsolidatedStore(store, s.chats, s.summaries, threshold, on_cut=left_out)

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        # A task, not an await: turn_done is emitted right after this returns. Claiming is a
        # set insertion, so "one per chat at a time" holds without delaying the answer.
        if not self.services.consolidator.claim(spec.chat_id):
            return
        task = asyncio.get_running_loop().create_task(
            self._consolidate(spec), name=f"consolidate:{spec.chat_id}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _consolidate(self, spec: TurnSpec) -> None:
        try:
            await self.services.consolidator.run(spec.chat_id, spec.provider_id, spec.model, claimed=True)
        except asyncio.CancelledError:
            raise
        except Exception:  # background work: log, never crash the loop
            _log.warning("consolidation of chat %s failed", spec.chat_id, exc_info=True)

    async def wait_background(self) -> None:
        """Wait for scheduled consolidations (tests, `cashcode ask` before exit)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def start(self) -> None:
        self.services.scheduler.start()

    async def aclose(self) -> None:
        if self.services.scheduler_built():
            await self.services.scheduler.stop()
        tasks = list(self._tasks)
        if tasks:
            # A consolidation already asked the model gets a bounded chance to finish (the CLI
            # closes right after its turn); cancelling it would change nothing either.
            _, pending = await asyncio.wait(tasks, timeout=CLOSE_GRACE_S)
            for task in pending:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

"""The memory services, built once per app from the database, data folder and settings.

Dream, its timer, the proposals and SOUL.md are built on first use (the Memory view, `start()`
of the desktop and `serve`): a turn never needs them, so `cashcode ask` does not import them.

A `MemoryBook` is one owner's long-term memory: MEMORY.md with its versions, explicit memories,
line sources and forgotten lines. The shared one (owner "") is what the app always had; an agent
with its own memory (issue 38) gets a book of its own, built on first use.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.contracts.agents import AgentDirectory
from app.contracts.provider import Provider
from app.memory.consolidator import Consolidator
from app.memory.explicit import MemoryRepository
from app.memory.lines import MemoryLines
from app.memory.memory_file import MemoryFile
from app.memory.notes import NotesRepository
from app.memory.provenance import Provenance, Tombstones
from app.memory.summaries import SummaryRepository
from app.settings.user_settings import SettingsStore, UserSettings
from app.store.chats import ChatRepository
from app.store.db import Database

if TYPE_CHECKING:
    from app.memory.dream import Dream, DreamScheduler
    from app.memory.proposals import ProposalRepository
    from app.memory.soul import SoulFile

ENV_DREAM = "CASHCODE_DREAM"  # "off": no Dream timer in this process (the test suite sets it)


@dataclass(frozen=True)
class MemoryBook:
    owner: str  # "" the shared memory, else the agent's id
    memory: MemoryFile
    memories: MemoryRepository
    provenance: Provenance
    tombstones: Tombstones
    lines: MemoryLines


def open_book(db: Database, data_dir: Path, owner: str) -> MemoryBook:
    memory = MemoryFile(db, data_dir, owner)
    provenance, tombstones = Provenance(db, owner), Tombstones(db, owner)
    lines = MemoryLines(memory, provenance, tombstones)
    return MemoryBook(owner, memory, MemoryRepository(db, owner), provenance, tombstones, lines)


class MemoryServices:
    def __init__(
        self,
        db: Database,
        chats: ChatRepository,
        data_dir: Path,
        settings: SettingsStore,
        provider_for: Callable[[str], Provider],
        env: Mapping[str, str],
        directory: Callable[[], AgentDirectory | None] = lambda: None,
    ) -> None:
        self._db = db
        self.directory = directory  # the agents (issue 38): which exist, which chats keep out
        self._data_dir = data_dir
        self._provider_for = provider_for
        self._timer_allowed = env.get(ENV_DREAM, "").strip().lower() not in ("off", "0", "false", "no")
        self.settings = settings
        self.chats = chats
        self.on_proposed: Callable[[str], None] = lambda _proposal_id: None  # set by the capability
        self.shared = open_book(db, data_dir, "")
        self._books: dict[str, MemoryBook] = {"": self.shared}
        self.memories = self.shared.memories
        self.memory = self.shared.memory
        self.provenance = self.shared.provenance
        self.tombstones = self.shared.tombstones
        self.lines = self.shared.lines
        self.summaries = SummaryRepository(db)
        self.notes = NotesRepository(db)
        self.consolidator = Consolidator(
            self.chats, self.summaries, provider_for, lambda: self._current().memory_consolidation_chars
        )

    def book(self, owner: str) -> MemoryBook:
        """One owner's memory ("" shared). The caller checked that the agent exists."""
        found = self._books.get(owner)
        if found is None:
            found = self._books[owner] = open_book(self._db, self._data_dir, owner)
        return found

    def _current(self) -> UserSettings:
        return self.settings.load()

    @functools.cached_property
    def proposals(self) -> ProposalRepository:
        from app.memory.proposals import ProposalRepository

        return ProposalRepository(self._db)

    @functools.cached_property
    def soul(self) -> SoulFile:
        from app.memory.soul import SoulFile

        return SoulFile(self._data_dir)

    @functools.cached_property
    def dream(self) -> Dream:
        from app.memory.dream import Dream, DreamDeps

        def last_model() -> tuple[str, str] | None:
            choice = self._current().last_model
            return (choice.provider_id, choice.model) if choice is not None else None

        return Dream(
            DreamDeps(
                db=self._db,
                chats=self.chats,
                memory=self.memory,
                proposals=self.proposals,
                provider_for=self._provider_for,
                model_choice=last_model,
                review_mode=lambda: self._current().dream_review,
                provenance=self.provenance,
                tombstones=self.tombstones,
                lock=asyncio.Lock(),
                on_proposed=lambda proposal_id: self.on_proposed(proposal_id),
                kept_out=self._own_memory_chats,
            )
        )

    def _own_memory_chats(self, chat_ids: list[str]) -> set[str]:
        directory = self.directory()
        return directory.own_memory_chats(chat_ids) if directory is not None else set()

    @functools.cached_property
    def scheduler(self) -> DreamScheduler:
        from app.memory.dream import DreamScheduler

        return DreamScheduler(
            self.dream,
            enabled=lambda: self._timer_allowed and self._current().dream_enabled,
            interval_s=lambda: self._current().dream_interval_minutes * 60.0,
        )

    def scheduler_built(self) -> bool:
        """False when nothing asked for the Dream timer (nothing to stop at close)."""
        return "scheduler" in self.__dict__


def build_services(
    db: Database,
    chats: ChatRepository,
    data_dir: Path,
    settings: SettingsStore,
    provider_for: Callable[[str], Provider],
    env: Mapping[str, str],
    directory: Callable[[], AgentDirectory | None] = lambda: None,
) -> MemoryServices:
    return MemoryServices(db, chats, data_dir, settings, provider_for, env, directory)

"""The memory services, built once per app from the database, data folder and settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.llm.base import Provider
from app.memory.consolidator import Consolidator
from app.memory.dream import Dream, DreamDeps, DreamScheduler
from app.memory.explicit import MemoryRepository
from app.memory.memory_file import MemoryFile
from app.memory.notes import NotesRepository
from app.memory.proposals import ProposalRepository
from app.memory.soul import SoulFile
from app.memory.summaries import SummaryRepository
from app.settings.user_settings import SettingsStore, UserSettings
from app.store.chats import ChatRepository
from app.store.db import Database

ENV_DREAM = "CASHCODE_DREAM"  # "off": no Dream timer in this process (the test suite sets it)


@dataclass(frozen=True)
class MemoryServices:
    settings: SettingsStore
    chats: ChatRepository
    memories: MemoryRepository
    memory: MemoryFile
    summaries: SummaryRepository
    proposals: ProposalRepository
    notes: NotesRepository
    soul: SoulFile
    consolidator: Consolidator
    dream: Dream
    scheduler: DreamScheduler


def build_services(
    db: Database,
    data_dir: Path,
    settings: SettingsStore,
    provider_for: Callable[[str], Provider],
    env: Mapping[str, str],
) -> MemoryServices:
    chats = ChatRepository(db)
    memory = MemoryFile(db, data_dir)
    summaries = SummaryRepository(db)
    proposals = ProposalRepository(db)

    def current() -> UserSettings:
        return settings.load()

    def last_model() -> tuple[str, str] | None:
        choice = current().last_model
        return (choice.provider_id, choice.model) if choice is not None else None

    dream = Dream(
        DreamDeps(
            db=db,
            chats=chats,
            memory=memory,
            proposals=proposals,
            provider_for=provider_for,
            model_choice=last_model,
            review_mode=lambda: current().dream_review,
            lock=asyncio.Lock(),
        )
    )
    timer_allowed = env.get(ENV_DREAM, "").strip().lower() not in ("off", "0", "false", "no")
    return MemoryServices(
        settings=settings,
        chats=chats,
        memories=MemoryRepository(db),
        memory=memory,
        summaries=summaries,
        proposals=proposals,
        notes=NotesRepository(db),
        soul=SoulFile(data_dir),
        consolidator=Consolidator(
            chats, summaries, provider_for, lambda: current().memory_consolidation_chars
        ),
        dream=dream,
        scheduler=DreamScheduler(
            dream,
            enabled=lambda: timer_allowed and current().dream_enabled,
            interval_s=lambda: current().dream_interval_minutes * 60.0,
        ),
    )

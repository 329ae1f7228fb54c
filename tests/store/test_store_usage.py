from __future__ import annotations

import pytest

from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.usage import UsageRepository, UsageTotals


def test_usage_is_recorded_per_chat_and_totalled(db: Database, chats: ChatRepository) -> None:
    usage = UsageRepository(db)
    a, b = chats.create().id, chats.create().id
    usage.record(a, "t1", "openai", "gpt-4o-mini", 100, 20)
    usage.record(a, "t2", "openai", "gpt-4o-mini", 50, None)
    usage.record(b, "t1", "ollama", "llama3", 7, 3)

    assert [(r.turn_id, r.input_tokens, r.output_tokens) for r in usage.for_chat(a)] == [
        ("t1", 100, 20),
        ("t2", 50, None),
    ]
    assert usage.totals() == UsageTotals(input_tokens=157, output_tokens=23, records=3)
    buckets = usage.by_day_and_model()
    assert {(x.model, x.input_tokens, x.records) for x in buckets} == {
        ("gpt-4o-mini", 150, 2),
        ("llama3", 7, 1),
    }


def test_usage_outlives_its_chat(db: Database, chats: ChatRepository) -> None:
    usage = UsageRepository(db)
    chat = chats.create().id
    usage.record(chat, "t1", "openai", "m", 1, 2)
    chats.delete(chat)
    assert usage.totals().records == 1


def test_negative_token_counts_are_refused(db: Database, chats: ChatRepository) -> None:
    with pytest.raises(ValueError):
        UsageRepository(db).record(chats.create().id, "t1", "p", "m", -1, 0)

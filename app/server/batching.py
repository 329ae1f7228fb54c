"""Turn queued events into the JSON batches the UI receives (same shape as the desktop pusher)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.contracts.events import AppEvent

JsonEvent = dict[str, Any]


def _same_stream(a: JsonEvent, b: JsonEvent) -> bool:
    return (
        a.get("type") == "delta"
        and b.get("type") == "delta"
        and a.get("chat_id") == b.get("chat_id")
        and a.get("turn_id") == b.get("turn_id")
        and a.get("channel") == b.get("channel")
    )


def merge_deltas(events: Iterable[JsonEvent]) -> list[JsonEvent]:
    """Fold runs of consecutive text deltas of one turn and channel into one delta.

    Order is kept exactly: only *adjacent* deltas merge, so a delta after a tool call is never
    moved before it.
    """
    merged: list[JsonEvent] = []
    for event in events:
        if merged and _same_stream(merged[-1], event):
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + event["text"]}
        else:
            merged.append(event)
    return merged


def to_batch(events: Iterable[AppEvent]) -> list[JsonEvent]:
    return merge_deltas(event.model_dump(mode="json") for event in events)

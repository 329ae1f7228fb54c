"""Pure helpers for the event pusher: normalise events, merge text deltas, split into capped
batches and encode them as JSON. No threads, no pywebview, so they are easy to test."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class _Dumpable(Protocol):
    """A typed `AppEvent` (pydantic). Matched structurally so importing the desktop shell does
    not import pydantic on the GUI thread's start-up path."""

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


Event = _Dumpable | Mapping[str, Any]
"""What the pusher accepts: a typed `AppEvent` or an already-plain dict."""

JsonDict = dict[str, Any]


def to_plain(event: Event) -> JsonDict:
    """A JSON-ready dict. Done on the pusher thread so the core loop only pays for a put()."""
    if isinstance(event, Mapping):
        return dict(event)
    return event.model_dump(mode="json")


def _delta_key(event: JsonDict) -> tuple[Any, Any, Any] | None:
    if event.get("type") != "delta" or not isinstance(event.get("text"), str):
        return None
    return (event.get("chat_id"), event.get("turn_id"), event.get("channel", "text"))


def merge_deltas(events: Iterable[JsonDict], max_text_chars: int) -> list[JsonDict]:
    """Merge runs of consecutive deltas of the same chat/turn/channel into one event.

    Only *consecutive* deltas merge, so a tool event between two deltas keeps its place.
    A merged text stops growing at `max_text_chars` so one event never outgrows a batch.
    """
    merged: list[JsonDict] = []
    last_key: tuple[Any, Any, Any] | None = None
    for event in events:
        key = _delta_key(event)
        if (
            key is not None
            and key == last_key
            and len(merged[-1]["text"]) + len(event["text"]) <= max_text_chars
        ):
            # Copy before mutating: the caller's dicts may be shared (tests, re-sends).
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + event["text"]}
            continue
        merged.append(event)
        last_key = key
    return merged


def encode_event(event: JsonDict) -> str:
    """JSON text safe to paste into a JS expression.

    JSON is a JS subset except U+2028/U+2029, which older engines treat as line breaks inside
    string literals; escaping them keeps the payload an expression on every webview.
    """
    text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def encoded_batches(events: Iterable[JsonDict], max_events: int, max_bytes: int) -> Iterator[str]:
    """Yield JSON arrays with at most `max_events` events and about `max_bytes` UTF-8 bytes.

    A single event bigger than `max_bytes` still goes out, alone in its batch.
    """
    parts: list[str] = []
    size = 2  # the brackets
    for event in events:
        part = encode_event(event)
        part_size = len(part.encode("utf-8")) + 1  # plus the comma
        if parts and (len(parts) >= max_events or size + part_size > max_bytes):
            yield "[" + ",".join(parts) + "]"
            parts, size = [], 2
        parts.append(part)
        size += part_size
    if parts:
        yield "[" + ",".join(parts) + "]"


def dispatch_script(batch_json: str) -> str:
    """The JS that hands one batch to the UI; a no-op until the UI has installed its hook."""
    return "window.__cashcode && window.__cashcode.dispatch(" + batch_json + ")"

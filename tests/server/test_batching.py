from __future__ import annotations

from typing import TypedDict

from app.contracts.events import AppEvent, Delta, ToolCallEvent, TurnDone
from app.server.batching import merge_deltas, to_batch


class TurnIds(TypedDict):
    chat_id: str
    turn_id: str


T1: TurnIds = {"chat_id": "c1", "turn_id": "t1"}
T2: TurnIds = {"chat_id": "c2", "turn_id": "t2"}


def test_adjacent_deltas_of_one_turn_and_channel_merge_into_one() -> None:
    batch = to_batch([Delta(**T1, text="a"), Delta(**T1, text="b"), Delta(**T1, text="c")])
    assert batch == [{"type": "delta", **T1, "text": "abc", "channel": "text"}]


def test_deltas_of_different_turns_or_channels_stay_apart_in_order() -> None:
    batch = to_batch(
        [
            Delta(**T1, text="a"),
            Delta(**T2, text="x"),
            Delta(**T1, text="b"),
            Delta(**T1, text="think", channel="reasoning"),
            Delta(**T1, text="c"),
        ]
    )
    assert [(e["chat_id"], e["channel"], e["text"]) for e in batch] == [
        ("c1", "text", "a"),
        ("c2", "text", "x"),
        ("c1", "text", "b"),
        ("c1", "reasoning", "think"),
        ("c1", "text", "c"),
    ]


def test_other_events_are_never_merged_or_reordered() -> None:
    events: list[AppEvent] = [
        Delta(**T1, text="a"),
        ToolCallEvent(**T1, call_id="k", name="read_file", arguments="{}"),
        Delta(**T1, text="b"),
        TurnDone(**T1, duration_ms=1.0, text="ab"),
        TurnDone(**T1, duration_ms=1.0, text="ab"),
    ]
    assert [e["type"] for e in to_batch(events)] == ["delta", "tool_call", "delta", "turn_done", "turn_done"]


def test_merging_does_not_modify_the_input_dicts() -> None:
    first = {"type": "delta", **T1, "text": "a", "channel": "text"}
    merge_deltas([first, {"type": "delta", **T1, "text": "b", "channel": "text"}])
    assert first["text"] == "a"

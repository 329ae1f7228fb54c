"""EventPusher with a fake window that records what would have been run in the page."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

from webview.errors import WebViewException

from app.contracts.events import Delta, ToolCallEvent
from app.desktop.pusher import EventPusher
from tests.desktop.harness import wait_until

_SCRIPT = re.compile(r"^window\.__cashcode && window\.__cashcode\.dispatch\((.*)\)$", re.S)


class FakeWindow:
    """Records dispatched batches; optionally slow, to force coalescing."""

    def __init__(self, delay_s: float = 0.0, fail_first: int = 0) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.threads: set[str] = set()
        self._delay_s = delay_s
        self._fail_first = fail_first
        self._lock = threading.Lock()

    def run_js(self, script: str) -> None:
        self.threads.add(threading.current_thread().name)
        if self._fail_first:
            self._fail_first -= 1
            raise WebViewException("Main window failed to start")
        match = _SCRIPT.match(script)
        assert match, script
        with self._lock:
            self.batches.append(json.loads(match.group(1)))
        time.sleep(self._delay_s)

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return [e for b in self.batches for e in b]


def delta(text: str, turn: str = "t1", channel: str = "text") -> Delta:
    return Delta(chat_id="c1", turn_id=turn, text=text, channel=channel)  # type: ignore[arg-type]


def test_two_thousand_tokens_arrive_complete_and_in_order() -> None:
    window = FakeWindow(delay_s=0.002)
    pusher = EventPusher(window)
    pusher.start()
    tokens = [f"tok{i} " for i in range(2000)]
    for token in tokens:
        pusher.emit(delta(token))
    assert pusher.stop()
    text = "".join(e["text"] for e in window.events())
    assert text == "".join(tokens)


def test_consecutive_deltas_are_coalesced_into_few_calls() -> None:
    window = FakeWindow(delay_s=0.01)
    pusher = EventPusher(window)
    pusher.start()
    for i in range(1000):
        pusher.emit(delta(f"{i},"))
    assert pusher.stop()
    assert pusher.flush_count < 100
    assert all(e["type"] == "delta" for e in window.events())


def test_tool_events_keep_their_place_between_deltas() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=0.2)  # long frame: everything lands in one batch
    pusher.emit(delta("a"))
    pusher.emit(delta("b"))
    pusher.emit(ToolCallEvent(chat_id="c1", turn_id="t1", call_id="x", name="read_file", arguments="{}"))
    pusher.emit(delta("c"))
    pusher.emit(delta("d"))
    pusher.start()
    assert pusher.stop()
    kinds = [(e["type"], e.get("text")) for e in window.events()]
    assert kinds == [("delta", "ab"), ("tool_call", None), ("delta", "cd")]


def test_deltas_of_different_turns_or_channels_are_not_merged() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=0.2)
    for event in (delta("r1", channel="reasoning"), delta("x"), delta("y", turn="t2"), delta("z", turn="t2")):
        pusher.emit(event)
    pusher.start()
    assert pusher.stop()
    got = [(e["turn_id"], e["channel"], e["text"]) for e in window.events()]
    assert got == [("t1", "reasoning", "r1"), ("t1", "text", "x"), ("t2", "text", "yz")]


def test_batches_respect_the_event_cap() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=0.2, max_events=50)
    for i in range(120):
        pusher.emit({"type": "usage", "chat_id": "c1", "turn_id": "t1", "model": "m", "output_tokens": i})
    pusher.start()
    assert pusher.stop()
    assert max(len(b) for b in window.batches) <= 50
    assert [e["output_tokens"] for e in window.events()] == list(range(120))


def test_batches_respect_the_byte_cap() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=0.2, max_bytes=8 * 1024)
    big = "é" * 1000  # 2,000 UTF-8 bytes
    for i in range(20):
        pusher.emit({"type": "tool_result", "call_id": str(i), "output": big})
    pusher.start()
    assert pusher.stop()
    for batch in window.batches:
        assert len(json.dumps(batch, ensure_ascii=False).encode()) <= 8 * 1024
    assert [e["call_id"] for e in window.events()] == [str(i) for i in range(20)]


def test_merged_delta_text_stops_growing_at_half_the_byte_cap() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=0.2, max_bytes=1000)
    for _ in range(100):
        pusher.emit(delta("0123456789"))
    pusher.start()
    assert pusher.stop()
    events = window.events()
    assert all(len(e["text"]) <= 500 for e in events)
    assert "".join(e["text"] for e in events) == "0123456789" * 100


def test_a_single_event_is_flushed_at_once_when_idle() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=30.0)  # a long frame would show up as a hang
    pusher.start()
    pusher.emit(delta("hi"))
    wait_until(lambda: window.events() == [delta("hi").model_dump(mode="json")])
    assert pusher.stop()


def test_a_steady_stream_is_flushed_about_every_interval_and_never_faster() -> None:
    class TimedWindow(FakeWindow):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[float] = []

        def run_js(self, script: str) -> None:
            self.calls.append(time.monotonic())
            super().run_js(script)

    window = TimedWindow()
    pusher = EventPusher(window, interval_s=0.02)
    pusher.start()
    tokens = [f"t{i:03d} " for i in range(150)]
    for token in tokens:  # ~500 tok/s for 0.3 s
        pusher.emit(delta(token))
        time.sleep(0.002)
    assert pusher.stop()
    assert "".join(e["text"] for e in window.events()) == "".join(tokens)
    gaps = [b - a for a, b in zip(window.calls, window.calls[1:], strict=False)]
    # The last call may be stop()'s flush; every other one waited for its interval.
    assert gaps and min(gaps[:-1] or gaps) >= 0.02 * 0.9
    assert pusher.flush_count >= 5  # batched per interval, not held until the end


def test_the_default_interval_is_shorter_than_a_frame() -> None:
    # A token waits up to one interval in the pusher; 16 ms alone used most of the 25 ms budget.
    window = FakeWindow()
    assert EventPusher(window)._interval_s <= 0.010


def test_a_failing_run_js_drops_that_batch_and_keeps_pushing() -> None:
    window = FakeWindow(fail_first=1)
    pusher = EventPusher(window)
    pusher.start()
    pusher.emit(delta("lost"))
    wait_until(lambda: pusher.flush_count == 1)
    pusher.emit(delta("kept"))
    assert pusher.stop()
    assert [e["text"] for e in window.events()] == ["kept"]


def test_untrusted_text_travels_as_json_not_as_code() -> None:
    window = FakeWindow()
    pusher = EventPusher(window)
    nasty = '"); alert(1); ("\u2028</script>\\'
    pusher.emit(delta(nasty))
    pusher.start()
    assert pusher.stop()
    assert window.events()[0]["text"] == nasty


def test_run_js_is_called_only_from_the_pusher_thread() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, name="js-pusher-test")
    pusher.start()
    pusher.emit(delta("x"))
    assert pusher.stop()
    assert window.threads == {"js-pusher-test"}


def test_stop_flushes_queued_events_and_ends_the_thread() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=5.0)
    pusher.start()
    pusher.emit(delta("first"))
    wait_until(lambda: pusher.flush_count == 1)
    pusher.emit(delta("second"))  # waits for the 5 s frame unless stop() flushes it
    assert pusher.stop(timeout_s=2.0)
    assert [e["text"] for e in window.events()] == ["first", "second"]


def test_stop_before_start_returns_true() -> None:
    assert EventPusher(FakeWindow()).stop()


def test_stop_gives_up_on_a_run_js_that_never_returns() -> None:
    class DeadWindow:
        def __init__(self) -> None:
            self.release = threading.Event()
            self.entered = threading.Event()

        def run_js(self, script: str) -> None:  # the page was destroyed mid-call
            self.entered.set()
            self.release.wait(30)

    window = DeadWindow()
    pusher = EventPusher(window)
    pusher.start()
    pusher.emit(delta("x"))
    assert window.entered.wait(5)
    assert pusher.stop(timeout_s=0.1) is False  # bounded: shutdown is not held hostage
    window.release.set()


def test_a_shorter_interval_applies_to_the_batch_already_waiting() -> None:
    window = FakeWindow()
    pusher = EventPusher(window, interval_s=60.0)  # a hidden window's slow pace, exaggerated
    pusher.start()
    try:
        pusher.emit(delta("first "))
        wait_until(lambda: len(window.batches) == 1)  # the first event after idle goes at once
        pusher.emit(delta("second"))  # would wait the rest of the 60 s window
        pusher.set_interval(0.008)  # the window is shown
        wait_until(lambda: len(window.batches) == 2, timeout_s=10.0)
        assert [e["text"] for e in window.events()] == ["first ", "second"]
    finally:
        pusher.stop()

from __future__ import annotations

from collections.abc import Callable

from app.contracts.events import AppEvent, SessionDeleted
from app.core.bus import EventBus


def test_every_subscriber_gets_the_event_even_when_one_raises() -> None:
    bus = EventBus()
    seen: list[str] = []

    def broken(event: AppEvent) -> None:
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(lambda e: seen.append(e.type))
    bus.publish(SessionDeleted(chat_id="c"))
    assert seen == ["session_deleted"]


def test_unsubscribe_stops_delivery_and_is_idempotent() -> None:
    bus = EventBus()
    seen: list[AppEvent] = []
    unsubscribe = bus.subscribe(seen.append)
    unsubscribe()
    unsubscribe()
    bus.publish(SessionDeleted(chat_id="c"))
    assert seen == []


def test_a_subscriber_may_unsubscribe_itself_while_handling_an_event() -> None:
    bus = EventBus()
    seen: list[str] = []
    unsubscribes: list[Callable[[], None]] = []

    def once(event: AppEvent) -> None:
        seen.append("once")
        unsubscribes[0]()

    unsubscribes.append(bus.subscribe(once))
    bus.subscribe(lambda e: seen.append("always"))
    bus.publish(SessionDeleted(chat_id="c"))
    bus.publish(SessionDeleted(chat_id="c"))
    assert seen == ["once", "always", "always"]

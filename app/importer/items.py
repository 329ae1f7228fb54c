"""What a source reader produces: planned items, each validated when read, applied later.

An item knows the API route it needs (None for core data written through the store), a stable
key for the import records, and how to apply itself to a `Target`. Applying raises `Skip` for
anything that must not be imported (conflict, refusal); it never overwrites.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.contracts.messages import Message
from app.contracts.tools import GrantKey
from app.importer.models import ItemStatus


class Skip(Exception):
    def __init__(self, status: ItemStatus, reason: str) -> None:
        super().__init__(reason)
        self.status: ItemStatus = status
        self.reason = reason


class Target(Protocol):
    """Where imported data goes: API routes by name, and the core stores."""

    def has_route(self, route: str) -> bool: ...

    async def call(self, route: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The route's `data`; raises Skip(conflict/failed) for an error envelope."""
        ...

    def chat_exists(self, chat_id: str) -> bool: ...

    def chat_messages(self, chat_id: str) -> list[tuple[str, Message]] | None:
        """(turn id, message) of every stored message in cursor order; None: no such chat."""
        ...

    def write_chat(
        self, chat_id: str, title: str, turns: Sequence[tuple[str, Sequence[Message]]], *, replace: bool
    ) -> None:
        """The chat and all its turns (turn id, messages) in ONE transaction; `replace`
        deletes a chat of that id in the same transaction."""
        ...

    def add_grant(self, key: GrantKey) -> bool:
        """False when an identical grant exists already."""
        ...


Apply = Callable[[Target], Awaitable[str]]  # returns the target id (for the records)


async def _nothing(target: Target) -> str:
    return ""


@dataclass
class Item:
    kind: str
    name: str
    key: str  # import-record key, stable across runs and folder moves
    route: str | None = None  # the API route it needs; None: core stores
    problem: str | None = None  # validation failure found while reading
    apply: Apply = _nothing
    notes: list[str] = field(default_factory=list)  # e.g. corrupt lines skipped inside a chat


def invalid(kind: str, name: str, key: str, problem: str) -> Item:
    return Item(kind=kind, name=name, key=key, problem=problem)

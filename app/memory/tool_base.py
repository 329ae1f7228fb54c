"""Shared plumbing for the memory, notes and todo tools: typed args, store errors → ToolError."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from app.contracts.messages import ToolSpec
from app.contracts.tools import Tool, ToolError
from app.store.errors import Conflict, NotFound

T = TypeVar("T")


def guarded(fn: Callable[[], T]) -> T:
    """Run a store call; bad input or a missing record becomes an error the model can read."""
    try:
        return fn()
    except (ValueError, NotFound, Conflict) as exc:
        raise ToolError(str(exc)) from exc


def str_list(args: Mapping[str, Any], name: str) -> list[str]:
    value = args.get(name, [])
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolError(f"Argument '{name}' must be an array of strings.")
    return list(value)


def string_prop(description: str) -> dict[str, object]:
    return {"type": "string", "description": description}


def list_prop(description: str) -> dict[str, object]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


class ToolSet:
    """A fixed set of tool instances offered to a turn (the `ToolBox` protocol)."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = {t.name: t for t in tools}

    def specs(self) -> Sequence[ToolSpec]:
        return [t.spec() for t in self._tools.values()]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

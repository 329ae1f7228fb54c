"""Typed readers for model-supplied tool arguments (models send loose JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.tools import ToolError


def req_str(args: Mapping[str, Any], name: str, *, allow_empty: bool = False) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolError(f"Argument '{name}' is required and must be a string.")
    if not allow_empty and not value:
        raise ToolError(f"Argument '{name}' must not be empty.")
    return value


def search_query(args: Mapping[str, Any], limit: int = 500) -> str:
    """A search tool's `query`: a non-empty string, cut to `limit` characters."""
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolError("'query' must be a non-empty string")
    return query[:limit]


def opt_str(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"Argument '{name}' must be a string.")
    return value


def opt_bool(args: Mapping[str, Any], name: str, default: bool = False) -> bool:
    value = args.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ToolError(f"Argument '{name}' must be true or false.")
    return value


def opt_int(args: Mapping[str, Any], name: str, *, default: int | None, lo: int, hi: int) -> int | None:
    value = args.get(name, default)
    if value is None:
        return default
    # bool is an int subclass; `true` is not a number for us.
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ToolError(f"Argument '{name}' must be an integer.")
    if not lo <= int(value) <= hi:
        raise ToolError(f"Argument '{name}' must be between {lo} and {hi}.")
    return int(value)


def req_str_list(args: Mapping[str, Any], name: str) -> list[str]:
    value = args.get(name)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ToolError(f"Argument '{name}' must be a non-empty array of strings.")
    return list(value)


def check_known_keys(parameters: Mapping[str, Any], args: Mapping[str, Any]) -> None:
    """Refuse argument names a closed schema (`additionalProperties: false`) does not list.

    A silently ignored key would make the model believe an option took effect (e.g. a made-up
    `overwrite: false`), so the model is told the names that exist instead."""
    if parameters.get("additionalProperties", True) is not False:
        return
    allowed = parameters.get("properties") or {}
    unknown = sorted(k for k in args if k not in allowed)
    if unknown:
        names = ", ".join(sorted(allowed)) or "(none)"
        raise ToolError(f"Unknown argument(s): {', '.join(unknown)}. This tool accepts only: {names}.")

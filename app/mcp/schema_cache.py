"""On-disk tool schemas, one file per server, so `tool_search` knows a server's tools without
connecting. A file is valid only for the transport fingerprint it was written for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.mcp.config import check_name
from app.mcp.connection import ToolDef
from app.support.atomic import atomic_write_text


class SchemaCache:
    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def _path(self, server: str) -> Path:
        return self._folder / f"{check_name(server)}.json"

    def load(self, server: str, fingerprint: str) -> list[ToolDef] | None:
        try:
            raw = json.loads(self._path(server).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(raw, dict) or raw.get("fingerprint") != fingerprint:
            return None
        try:
            return [_tool(t) for t in raw.get("tools", [])]
        except (KeyError, TypeError, ValueError):
            return None

    def save(self, server: str, fingerprint: str, tools: list[ToolDef]) -> None:
        data = {
            "fingerprint": fingerprint,
            "tools": [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.input_schema,
                    "read_only_hint": t.read_only_hint,
                    "diagnostic": t.diagnostic,
                    "ui_resource_uri": t.ui_resource_uri,
                    "visibility": list(t.visibility),
                }
                for t in tools
            ],
        }
        self._folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self._path(server), json.dumps(data, ensure_ascii=False))

    def drop(self, server: str) -> None:
        self._path(server).unlink(missing_ok=True)


def _tool(raw: Any) -> ToolDef:
    schema = raw["input_schema"]
    if not isinstance(schema, dict):
        raise ValueError("bad schema")
    return ToolDef(
        name=str(raw["name"]),
        description=str(raw.get("description") or ""),
        input_schema=schema,
        read_only_hint=raw.get("read_only_hint"),
        diagnostic=raw.get("diagnostic"),
        ui_resource_uri=uri if isinstance(uri := raw.get("ui_resource_uri"), str) else None,
        visibility=tuple(v for v in raw.get("visibility") or ("model", "app") if v in ("model", "app")),
    )

"""Claude-Desktop style `{"mcpServers": {...}}` snippets -> entry inputs (preview, then save)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.mcp.catalog import EntryInput, build_entry
from app.mcp.config import ConfigError, ServerEntry
from app.support.launch_env import is_loader_env, is_secret_name

MAX_SNIPPET = 1_000_000


@dataclass(frozen=True)
class ImportItem:
    name: str
    entry: EntryInput | None
    preview: ServerEntry | None
    error: str | None  # why this one cannot be imported


def parse_snippet(text: str) -> list[ImportItem]:
    """Every server of the snippet with its entry or the reason it is refused. Raises ConfigError
    when the text is not an mcpServers JSON object at all."""
    if len(text) > MAX_SNIPPET:
        raise ConfigError("the snippet is too large (at most 1 MB)")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    servers = raw.get("mcpServers") if isinstance(raw, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError('expected a JSON object with an "mcpServers" object inside')
    items = []
    for key, spec in servers.items():
        # Server names are lowercase (config.NEW_NAME_RE); `GitHub` from another app's config
        # becomes `github`, shown as "GitHub" unless the entry names a display name itself.
        name = str(key).lower()
        try:
            entry = _entry(name, spec, shown=str(key))
            preview, _ = build_entry(entry, None)
            items.append(ImportItem(name, entry, preview, None))
        except ConfigError as exc:
            items.append(ImportItem(name, None, None, str(exc)))
    return items


def _entry(name: str, spec: Any, *, shown: str) -> EntryInput:
    if not isinstance(spec, dict):
        raise ConfigError("each server must be a JSON object")
    kind = str(spec.get("type") or spec.get("transport") or ("stdio" if "command" in spec else "http"))
    if "command" in spec:
        args = spec.get("args", [])
        env = spec.get("env", {})
        if not isinstance(args, list) or not isinstance(env, dict):
            raise ConfigError('"args" must be a list and "env" an object')
        env_s = {str(k): str(v) for k, v in env.items()}
        marked = spec.get("secret_env", [])
        if not isinstance(marked, list):
            raise ConfigError('"secret_env" must be a list of variable names')
        return EntryInput(
            name=name,
            transport=kind,
            display_name=str(spec.get("display_name", shown)),
            description=str(spec.get("description", "")),
            command=str(spec["command"]),
            args=[str(a) for a in args],
            env=env_s,
            # A value is a secret when its name says so or the snippet marks it (`secret_env`):
            # everything else is shown, so the launch is not confirmed blind (decision 283). A
            # loader variable is never masked: its value decides what runs.
            secret_env=[
                k
                for k, v in env_s.items()
                if v and (is_secret_name(k) or k in marked) and not is_loader_env(k)
            ],
        )
    headers = spec.get("headers", {})
    if not isinstance(headers, dict):
        raise ConfigError('"headers" must be an object')
    if "url" not in spec:
        raise ConfigError('a server needs "command" (stdio) or "url" (http/sse)')
    return EntryInput(
        name=name,
        transport=kind,
        display_name=str(spec.get("display_name", shown)),
        description=str(spec.get("description", "")),
        url=str(spec["url"]),
        headers={str(k): str(v) for k, v in headers.items()},
    )

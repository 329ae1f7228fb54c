"""The MCP Registry's answers kept on disk in the app's cache folder (`<cache>/mcp_registry/`),
one file per (base URL, search, cursor): a fresh one answers without the network, an old one
is what the Market shows when the registry cannot be reached (marked as cached, with its time).
Only entries that passed validation are kept; a damaged file is a miss, never an error."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from app.mcp_catalog.registry import Page
from app.mcp_catalog.registry_models import WireEntry
from app.support.atomic import atomic_write_text

TTL_S = 3_600.0
MAX_FILES = 200  # oldest go first past this


@dataclass(frozen=True)
class Cached:
    page: Page
    fetched_at: float  # seconds since the epoch

    def fresh(self, now: float, ttl_s: float = TTL_S) -> bool:
        return 0 <= now - self.fetched_at < ttl_s


class RegistryCache:
    def __init__(self, folder: Path, clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self._clock = clock

    def _file(self, base_url: str, search: str, cursor: str) -> Path:
        key = json.dumps([base_url, search.strip().lower(), cursor])
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def get(self, base_url: str, search: str, cursor: str) -> Cached | None:
        path = self._file(base_url, search, cursor)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = tuple(WireEntry.model_validate(e) for e in data["entries"])
            return Cached(
                Page(entries, str(data.get("next_cursor", "")), tuple(map(str, data.get("skipped", [])))),
                float(data["fetched_at"]),
            )
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None

    def put(self, base_url: str, search: str, cursor: str, page: Page) -> float:
        now = self._clock()
        data = {
            "base_url": base_url,
            "search": search,
            "cursor": cursor,
            "fetched_at": now,
            "next_cursor": page.next_cursor,
            "skipped": list(page.skipped),
            "entries": [e.model_dump(mode="json", by_alias=True) for e in page.entries],
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self._file(base_url, search, cursor), json.dumps(data, ensure_ascii=False))
        self._prune()
        return now

    def find(self, base_url: str, name: str) -> WireEntry | None:
        """An entry of any cached page of this registry (install while offline)."""
        best: tuple[float, WireEntry] | None = None
        for path in self.folder.glob("*.json") if self.folder.is_dir() else ():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("base_url") != base_url:
                    continue
                for raw in data["entries"]:
                    server = raw.get("server") if isinstance(raw, dict) else None
                    if isinstance(server, dict) and server.get("name") == name:
                        at = float(data["fetched_at"])
                        if best is None or at > best[0]:
                            best = (at, WireEntry.model_validate(raw))
            except (OSError, ValueError, KeyError, TypeError, ValidationError):
                continue
        return best[1] if best else None

    def _prune(self) -> None:
        files = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in files[: max(0, len(files) - MAX_FILES)]:
            old.unlink(missing_ok=True)

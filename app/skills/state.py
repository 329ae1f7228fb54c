"""Persisted enabled/disabled state: a small JSON file, written atomically."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from app.skills.fsutil import atomic_write_bytes


class SkillStateFile:
    """Disabled names (by name, not by source: disabling a Skill must not resurface a copy it
    shadows). A missing or damaged file means "everything enabled"."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def disabled(self) -> frozenset[str]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return frozenset()
        names = data.get("disabled") if isinstance(data, dict) else None
        if not isinstance(names, list):
            return frozenset()
        return frozenset(n for n in names if isinstance(n, str))

    def set_enabled(self, name: str, enabled: bool) -> None:
        with self._lock:
            names = set(self.disabled())
            if enabled:
                names.discard(name)
            else:
                names.add(name)
            self._path.parent.mkdir(parents=True, exist_ok=True)
            payload = json.dumps({"version": 1, "disabled": sorted(names)}, indent=2) + "\n"
            atomic_write_bytes(self._path, payload.encode("utf-8"))

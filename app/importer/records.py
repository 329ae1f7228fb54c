"""Which source items were imported already, so a re-run imports nothing twice.

Keys name the source item, not the source folder's path (a moved folder is the same data):
e.g. `cdy_agent:memory:<uuid>` or `cashcode:skill:<name>:<sha256>`.
"""

from __future__ import annotations

from app.store.db import Database
from app.store.timeutil import utc_now_iso


class ImportRecords:
    def __init__(self, db: Database) -> None:
        self._db = db

    def has(self, item_key: str) -> bool:
        return bool(self._db.query("SELECT 1 FROM import_records WHERE item_key = ?", (item_key,)))

    def add(self, item_key: str, target: str = "") -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO import_records (item_key, target, imported_at) VALUES (?, ?, ?)",
                (item_key, target, utc_now_iso()),
            )

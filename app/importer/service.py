"""Preview and run an import: detect the source, then validate, de-duplicate and apply each item.

Items go one by one; each successful one is recorded at once, so an interrupted run loses
nothing and a re-run imports nothing twice. Nothing existing is ever overwritten: conflicts,
invalid items and items whose capability is not in this build are reported and skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.contracts.errors import ApiFailure, say
from app.importer.cashcode_source import find_root, read_cashcode
from app.importer.cdy_source import find_data_dir, read_cdy
from app.importer.items import Item, Skip, Target
from app.importer.models import ImportItem, ImportReport, SourceKind
from app.importer.records import ImportRecords
from app.store.errors import StoreError


def detect(path: Path) -> tuple[SourceKind, list[Item]]:
    if not path.is_dir():
        raise ApiFailure("invalid", say("import.not_folder", path=path))
    data_dir = find_data_dir(path)
    if data_dir is not None:
        return "cdy_agent", read_cdy(data_dir)
    root = find_root(path)
    if root is not None:
        return "cashcode", read_cashcode(root)
    raise ApiFailure("invalid", say("import.unknown_folder", path=path))


class ImportService:
    def __init__(self, target: Target, records: ImportRecords) -> None:
        self._target = target
        self._records = records

    async def run(self, raw_path: str, *, dry_run: bool) -> ImportReport:
        path = Path(raw_path).expanduser()  # noqa: ASYNC240  only reads $HOME
        if not path.is_absolute():
            raise ApiFailure("invalid", say("import.not_absolute"))
        source, items = detect(path)
        report = [await self._one(item, dry_run) for item in items]
        done = "would_import" if dry_run else "imported"
        imported = sum(1 for r in report if r.status == done)
        return ImportReport(
            source=source,
            path=str(path),
            dry_run=dry_run,
            items=report,
            imported=imported,
            skipped=len(report) - imported,
        )

    async def _one(self, item: Item, dry_run: bool) -> ImportItem:
        def result(status: str, reason: str = "") -> ImportItem:
            return ImportItem(kind=item.kind, name=item.name, status=status, reason=reason)  # type: ignore[arg-type]

        if item.problem is not None:
            return result("invalid", item.problem)
        if self._records.has(item.key):
            return result("already_imported", "imported by an earlier run")
        if item.route is not None and not self._target.has_route(item.route):
            return result(
                "unavailable", f"this build has no `{item.route}` route, so it cannot take this item"
            )
        if dry_run:
            return result("would_import", _notes(item.notes))
        try:
            target_id = await item.apply(self._target)
        except Skip as skip:
            return result(skip.status, skip.reason)
        except (StoreError, ValueError) as exc:
            return result("failed", str(exc))
        self._records.add(item.key, target_id)
        return result("imported", _notes(item.notes))


def _notes(notes: Sequence[str]) -> str:
    return "; ".join(notes)

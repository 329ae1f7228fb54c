"""Catalog values → API views (shared by the routes and the CLI's `skills search --json`)."""

from __future__ import annotations

from app.skills import api_models as am
from app.skills.catalog import CatalogEntry, SkillDiagnostic
from app.skills.manifest import advisory_warnings
from app.skills.redact import Redactor
from app.skills.runtime import SkillRuntime
from app.skills.validate import validate_package


def item_view(
    entry: CatalogEntry, runtime: SkillRuntime, redact: Redactor, score: float | None = None
) -> am.SkillItem:
    m = entry.manifest
    missing = runtime.missing(entry)
    return am.SkillItem(
        name=entry.name,
        display_name=m.display_name,
        description=m.description,
        source=entry.source,
        version=m.version,
        tags=list(m.tags),
        enabled=entry.enabled,
        selectable=entry.selectable and not missing,
        writable=entry.writable,
        sha256=entry.sha256,
        path=redact(str(entry.path)),
        shadows=[am.SkillRefView(source=r.source, path=redact(str(r.path))) for r in entry.shadows],
        shadowed_by=(
            am.SkillRefView(source=entry.shadowed_by.source, path=redact(str(entry.shadowed_by.path)))
            if entry.shadowed_by is not None
            else None
        ),
        missing=missing,
        warnings=entry_warnings(entry),
        score=score,
    )


def entry_warnings(entry: CatalogEntry) -> list[str]:
    checked = validate_package(entry.path)
    body = checked.document.body if checked.kind == "valid" else ""
    return advisory_warnings(entry.manifest, body)


def diagnostic_view(diag: SkillDiagnostic) -> am.SkillDiagnosticView:
    return am.SkillDiagnosticView(
        source=diag.source,
        directory=diag.dir_name,
        path=diag.display_path,
        reason=diag.reason,
        problems=[am.SkillProblemView(rule=p.rule, message=p.message) for p in diag.problems],
    )

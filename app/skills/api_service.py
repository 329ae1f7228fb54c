"""Handlers of the `skills.*` routes. Each one maps Skills errors to API errors; file work runs
in a worker thread so the core loop stays responsive."""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from app.contracts import replies as m
from app.contracts.capability import Handler
from app.contracts.errors import ApiFailure, said, say
from app.skills import api_models as am
from app.skills.catalog import CatalogEntry
from app.skills.evolution import Proposal
from app.skills.evolver import ProposalError, SkillEvolver
from app.skills.importing import ImportSource, SkillImporter
from app.skills.model import (
    ArchiveRejected,
    SkillConflict,
    SkillError,
    SkillInvalid,
    SkillNotFound,
    SkillReadOnly,
)
from app.skills.redact import Redactor
from app.skills.resources import list_package_files
from app.skills.runtime import SkillRuntime
from app.skills.validate import validate_package
from app.skills.views import diagnostic_view, item_view

T = TypeVar("T")


def _failure(exc: SkillError) -> ApiFailure:
    if isinstance(exc, SkillNotFound):
        return ApiFailure("not_found", said(exc))
    if isinstance(exc, SkillConflict):
        return ApiFailure("conflict", said(exc))
    if isinstance(exc, SkillInvalid):
        return ApiFailure("invalid", said(exc), {p.rule: p.message for p in exc.problems})
    if isinstance(exc, ArchiveRejected):
        return ApiFailure("invalid", exc.problem.message, {exc.problem.rule: exc.problem.message})
    if isinstance(exc, SkillReadOnly):
        return ApiFailure("invalid", said(exc))
    return ApiFailure("internal", said(exc))


async def _run(fn: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(fn)
    except SkillError as exc:
        raise _failure(exc) from None


class SkillsApi:
    def __init__(self, runtime: SkillRuntime, evolver: SkillEvolver | None = None) -> None:
        self._rt = runtime
        self._evolver = evolver
        self._redact = Redactor(runtime.config.home)

    def handlers(self) -> Mapping[str, Handler]:
        table: dict[str, Callable[[Any], Any]] = {
            "skills.list": self.list,
            "skills.get": self.get,
            "skills.content": self.content,
            "skills.create": self.create,
            "skills.save": self.save,
            "skills.delete": self.delete,
            "skills.set_enabled": self.set_enabled,
            "skills.validate": self.validate,
            "skills.versions": self.versions,
            "skills.rollback": self.rollback,
            "skills.import_preview": self.import_preview,
            "skills.import": self.import_,
            "skills.export": self.export,
            "skills.invalid_delete": self.invalid_delete,
            "skills.proposals.list": self.proposals_list,
            "skills.proposals.approve": self.proposals_approve,
            "skills.proposals.reject": self.proposals_reject,
        }
        return table

    def _importer(self) -> SkillImporter:
        return SkillImporter(self._rt.services().store)

    # -- reading ---------------------------------------------------------------------------------

    async def list(self, req: am.SkillListQuery) -> am.SkillListResult:
        def work() -> am.SkillListResult:
            snap = self._rt.snapshot()
            if req.query.strip():
                hits = self._rt.search(req.query, limit=10_000, snapshot=snap)
                pairs: list[tuple[CatalogEntry, float | None]] = [(h.entry, h.score) for h in hits]
            else:
                pairs = [(e, None) for e in snap.active()]
            pairs = [(e, s) for e, s in pairs if self._wanted(e, req)]
            start = (req.page - 1) * req.page_size
            page = pairs[start : start + req.page_size]
            return am.SkillListResult(
                items=[item_view(e, self._rt, self._redact, s) for e, s in page],
                total=len(pairs),
                page=req.page,
                page_size=req.page_size,
                invalid=[diagnostic_view(d) for d in snap.diagnostics],
            )

        return await _run(work)

    def _wanted(self, entry: CatalogEntry, req: am.SkillListQuery) -> bool:
        if req.enabled is not None and entry.enabled != req.enabled:
            return False
        if req.availability is None:
            return True
        available = entry.selectable and not self._rt.missing(entry)
        return available == (req.availability == "available")

    async def get(self, req: am.SkillName) -> am.SkillDetail:
        def work() -> am.SkillDetail:
            store = self._rt.services().store
            entry = store.entry(req.name)
            text = store.read(req.name)
            files, total = list_package_files(entry.path)
            mf = entry.manifest
            checked = validate_package(entry.path)
            body = checked.document.body if checked.kind == "valid" else text.content
            return am.SkillDetail(
                skill=item_view(entry, self._rt, self._redact),
                files=files,
                file_count=total,
                body=body,
                license=mf.license,
                compatibility=mf.compatibility,
                allowed_tools=list(mf.allowed_tools),
                metadata=dict(mf.metadata),
                requires={k: list(getattr(mf.requires, k)) for k in ("tools", "mcp_servers", "bins", "env")},
            )

        return await _run(work)

    async def content(self, req: am.SkillName) -> am.SkillContent:
        def work() -> am.SkillContent:
            store = self._rt.services().store
            entry = store.entry(req.name)
            text = store.read(req.name)
            return am.SkillContent(
                name=text.name,
                content=text.content,
                hash=text.sha256,
                source=text.source,
                mutable=entry.writable,
                enabled=entry.enabled,
            )

        return await _run(work)

    async def validate(self, req: am.SkillName) -> am.SkillValidation:
        return await _run(lambda: self._importer().validate_installed(req.name))

    async def versions(self, req: am.SkillName) -> am.SkillVersionList:
        def work() -> am.SkillVersionList:
            found = self._rt.services().store.versions(req.name)
            return am.SkillVersionList(
                versions=[
                    am.SkillVersionView(
                        id=v.version_id, reason=v.reason, created_at=v.created_at, sha256=v.skill_md_sha256
                    )
                    for v in reversed(found)
                ]
            )

        return await _run(work)

    # -- changing --------------------------------------------------------------------------------

    async def create(self, req: am.SkillCreate) -> am.SkillItem:
        def work() -> am.SkillItem:
            installed = self._importer().create_from_text(req.content)
            return item_view(self._rt.services().store.entry(installed.name), self._rt, self._redact)

        return await _run(work)

    async def save(self, req: am.SkillSave) -> am.SkillContent:
        await _run(lambda: self._rt.services().store.replace(req.name, req.content, req.base_hash))
        return await self.content(am.SkillName(name=req.name))

    async def delete(self, req: am.SkillName) -> m.Ok:
        await _run(lambda: self._rt.services().store.delete(req.name))
        return m.Ok()

    async def set_enabled(self, req: am.SkillSetEnabled) -> am.SkillItem:
        entry = await _run(lambda: self._rt.services().store.set_enabled(req.name, req.enabled))
        return item_view(entry, self._rt, self._redact)

    async def rollback(self, req: am.SkillRollback) -> am.SkillContent:
        await _run(lambda: self._rt.services().store.rollback(req.name, req.version))
        return await self.content(am.SkillName(name=req.name))

    async def invalid_delete(self, req: am.SkillInvalidRef) -> m.Ok:
        await _run(lambda: self._rt.services().store.delete_invalid(req.source, req.directory))
        return m.Ok()

    # -- import / export -------------------------------------------------------------------------

    async def import_preview(self, req: am.SkillImportSource) -> am.SkillImportPreview:
        source = _import_source(req)
        return await _run(lambda: self._importer().preview(source))

    async def import_(self, req: am.SkillImportSource) -> am.SkillItem:
        source = _import_source(req)

        def work() -> am.SkillItem:
            installed = self._importer().install(source)
            return item_view(self._rt.services().store.entry(installed.name), self._rt, self._redact)

        return await _run(work)

    async def export(self, req: am.SkillName) -> am.SkillExport:
        return await _run(lambda: self._importer().export_bytes(req.name))

    # -- self-evolution proposals --------------------------------------------------------------

    def _need_evolver(self) -> SkillEvolver:
        if self._evolver is None:
            raise ApiFailure("unsupported", say("skill.no_evolution"))
        return self._evolver

    async def proposals_list(self, req: m.Empty) -> am.ProposalList:
        evolver = self._need_evolver()
        return am.ProposalList(
            enabled=evolver.enabled(), proposals=[_proposal_view(p) for p in evolver.list()]
        )

    async def proposals_approve(self, req: am.ProposalRef) -> am.ProposalView:
        evolver = self._need_evolver()
        try:
            return _proposal_view(await _run(lambda: evolver.approve(req.id)))
        except ProposalError as exc:
            raise ApiFailure("not_found", said(exc)) from None

    async def proposals_reject(self, req: am.ProposalRef) -> am.ProposalView:
        evolver = self._need_evolver()
        try:
            return _proposal_view(evolver.reject(req.id))
        except ProposalError as exc:
            raise ApiFailure("not_found", said(exc)) from None


def _import_source(req: am.SkillImportSource) -> ImportSource:
    if (req.path is None) == (req.data_base64 is None):
        raise ApiFailure("invalid", say("skill.import_source"))
    if req.path is not None:
        path = Path(req.path)
        if not path.is_absolute() or "\x00" in req.path:
            raise ApiFailure("invalid", say("path.must_be_absolute"))
        if not os.path.exists(path):
            raise ApiFailure("not_found", say("path.missing", path=req.path))
        return ImportSource(path=path)
    name = req.filename or "skill.zip"
    if not name.lower().endswith(".zip"):
        # With the field named, REST answers 422 (a payload that fails its rules), not 400.
        only_zip = say("skill.zip_only")
        raise ApiFailure("invalid", only_zip, {"filename": str(only_zip)})
    try:
        data = base64.b64decode(req.data_base64 or "", validate=True)
    except (binascii.Error, ValueError):
        raise ApiFailure("invalid", say("file.bad_base64")) from None
    return ImportSource(data=data)


def _proposal_view(p: Proposal) -> am.ProposalView:
    # The table's CHECK constraint limits `status` to the literal's values.
    return am.ProposalView.model_validate(
        {
            "id": p.id,
            "status": p.status,
            "name": p.name,
            "content": p.content,
            "reason": p.reason,
            "created_at": p.created_at,
        }
    )

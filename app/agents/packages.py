"""Agent packages for the `agents.export`, `agents.import_preview` and `agents.import` routes:
the app's folders and stores handed to the reader, previewer, installer and exporter.

Import is two calls: the preview (the package is staged, checked and described, then removed)
and the install, which names the preview's digest so that exactly what was shown is installed."""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from app.agents import api_models as am
from app.agents import package_export, package_install, package_preview
from app.agents.package_read import PackageRefused, StagedPackage
from app.contracts.errors import ApiFailure, nest, say

if TYPE_CHECKING:
    from app.agents.model import AgentRecord
    from app.agents.store import AgentStore
    from app.host.host import Host


def refused(exc: PackageRefused) -> ApiFailure:
    # A keyed reason (the ZIP rules) rides along as `reason_key`/`reason_<param>` (issue 41).
    message = nest(say("agent.package_refused", reason=exc.reason), "reason", exc.reason)
    return ApiFailure("invalid", message, {"rule": exc.rule})


class AgentPackages:
    def __init__(self, host: Host, store: AgentStore, hook: package_install.Hook | None = None) -> None:
        self._host = host
        self._store = store
        # Called at each install step (`install:staged`, `install:committed`, `publish:moved`):
        # the kill -9 tests pause the installer there.
        self.hook: package_install.Hook = hook or (lambda step: None)
        data = host.paths.data_dir
        self.dirs = package_install.PackageDirs(
            data_dir=data,
            skills_user=host.paths.skills_dir / "user",
            servers_json=data / "mcp" / "servers.json",
        )

    def _builtin_servers(self) -> set[str]:
        from app.mcp.catalog import builtin_dir, load_builtin

        return {e.name for e in load_builtin(builtin_dir())}

    def recover(self) -> None:
        package_install.recover(self._host.db, self.dirs)

    # ---- export --------------------------------------------------------------------------------

    def export(self, req: am.PackageExport) -> am.PackageExported:
        from app.mcp.catalog import UserCatalog
        from app.tasks.model import TaskDraft

        record: AgentRecord = self._store.find(req.agent_id)
        if record.builtin:
            raise ApiFailure("invalid", say("agent.default_fixed"))
        db = self._host.db
        came_from = package_install.installed_of_agent(db, record.id)
        rows = db.query(
            "SELECT draft FROM tasks WHERE json_extract(draft, '$.agent_id') = ? ORDER BY name", (record.id,)
        )
        sources = package_export.ExportSources(
            skill_roots=(self.dirs.skills_user, self._host.paths.skills_dir / "agent"),
            servers=tuple(UserCatalog(self.dirs.servers_json, self._host.secrets).entries()),
            tasks=tuple(TaskDraft.model_validate_json(r["draft"]) for r in rows),
        )
        package_id = req.package_id or (
            came_from.manifest.id if came_from else package_export.package_id_of(record.spec.name)
        )
        version = req.version or (came_from.manifest.version if came_from else 1)
        try:
            manifest, files = package_export.build(record.spec, sources, package_id, version)
            if req.path is not None:
                digest = package_export.write(Path(req.path), manifest, files)
                data = None
            else:
                with tempfile.TemporaryDirectory() as tmp:
                    out = Path(tmp) / "agent.cashagent"
                    digest = package_export.write(out, manifest, files)
                    data = base64.b64encode(out.read_bytes()).decode()
        except PackageRefused as exc:
            raise refused(exc) from None
        except ValueError as exc:  # an id or name the manifest model refuses
            raise ApiFailure("invalid", say("agent.package_refused", reason=str(exc)[:300])) from None
        return am.PackageExported(
            path=req.path,
            filename=f"{manifest.id}-{manifest.version}.cashagent",
            data_base64=data,
            package_id=manifest.id,
            version=manifest.version,
            digest=digest,
            files=len(files),
        )

    # ---- import --------------------------------------------------------------------------------

    def _stage(self, path_or_data: am.PackagePath | am.PackageImport) -> tuple[StagedPackage, Path]:
        """The package read, checked and unpacked into a staging folder (after finishing or
        undoing an install a crash interrupted); a refusal carries its reason."""
        package_install.recover(self._host.db, self.dirs)
        try:
            with _source(path_or_data.path, path_or_data.data_base64) as path:
                return package_install.new_stage(self.dirs, path)
        except PackageRefused as exc:
            raise refused(exc) from None

    def preview(self, req: am.PackagePath) -> am.PackagePreview:
        db = self._host.db
        staged, folder = self._stage(req)
        try:
            old = package_install.installed(db, staged.manifest.id)
            return package_preview.preview(
                staged.manifest, staged.digest, old.manifest if old else None, old.agent_id if old else None
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def install(self, req: am.PackageImport) -> am.PackageInstalled:
        from app.tasks.zone import local_zone_name

        db = self._host.db
        staged, folder = self._stage(req)
        try:
            if staged.digest != req.digest:
                raise ApiFailure("invalid", say("agent.package_changed"))
            agent_id = package_install.install(
                db,
                self.dirs,
                staged,
                folder,
                builtin_servers=self._builtin_servers(),
                time_zone=local_zone_name(os.environ),
                hook=self.hook,
            )
        except PackageRefused as exc:  # refused before its commit: nothing of it is kept
            shutil.rmtree(folder, ignore_errors=True)
            raise refused(exc) from None
        except ApiFailure:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        # Any other failure may come after the commit: the staging folder stays for `recover`.
        unset = package_install.store_secrets(self._host.secrets.set, staged.manifest, req.secrets)
        return am.PackageInstalled(
            agent=_view(self._store.get(agent_id)),
            version=staged.manifest.version,
            unset_secrets=[am.PackageSecretInput(server=s, name=n, kind=k) for s, n, k in unset],  # type: ignore[arg-type]
        )


@contextlib.contextmanager
def _source(path: str | None, data_base64: str | None) -> Iterator[Path]:
    """The package as a file: the path given, or the uploaded bytes in a temp file."""
    if (path is None) == (data_base64 is None):
        raise ApiFailure("invalid", say("agent.package_source"))
    if path is not None:
        yield Path(path)
        return
    try:
        data = base64.b64decode(data_base64 or "", validate=True)
    except ValueError:
        raise PackageRefused("package.upload", "the uploaded data is not base64") from None
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "upload.cashagent"
        target.write_bytes(data)
        yield target


def _view(record: AgentRecord) -> am.AgentView:
    return am.AgentView(
        id=record.id, spec=record.spec, builtin=record.builtin, created_at=record.created_at,
        updated_at=record.updated_at,
    )  # fmt: skip

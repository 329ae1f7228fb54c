"""Reading an untrusted `.cashagent` file: the Skill ZIP hardening (app/support/ziparchive.py)
plus the package's own rules, all checked before anything is kept.

`stage(path, into)` extracts into a fresh folder `into` and checks every file against the
manifest's sha256 and size; on any refusal the folder is removed, so a refused package leaves
nothing behind. The reason is a `PackageRefused` with a stable rule id and a sentence."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from app.agents.package_model import MANIFEST, PACKAGE_MODES, PackageManifest
from app.contracts.errors import say
from app.support import ziparchive
from app.support.ziparchive import ArchiveLimits, ArchiveRefused

LIMITS = ArchiveLimits()  # the Skill ZIP limits: 10 MiB packed, 512 members, 50 MiB unpacked
MAX_MANIFEST = 1024 * 1024
# Names a hostile manifest uses to claim what only the user gives (refused with that reason
# rather than as "an unknown field", so the user learns what the package tried).
_CLAIMS = ("approval", "grant", "trust", "allow_always", "permission", "autonomous")


class PackageRefused(ValueError):
    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


@dataclass(frozen=True)
class StagedPackage:
    manifest: PackageManifest
    digest: str  # sha256 of manifest.json: names exactly what the preview showed
    root: Path  # the extracted files (`skills/<name>/...`)


def read_manifest(raw: bytes) -> PackageManifest:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        not_json = say("agent.package.not_json", reason=str(exc)[:80])
        raise PackageRefused("package.manifest", not_json) from None
    if not isinstance(data, dict):
        raise PackageRefused("package.manifest", say("agent.package.not_object"))
    _no_claims(data, "manifest")
    try:
        return PackageManifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "manifest"
        if first["type"] == "extra_forbidden":
            reason = say("agent.package.unknown_field", where=where[:120])
        else:
            reason = say("agent.package.invalid_field", where=where[:120], reason=first["msg"][:200])
        raise PackageRefused("package.manifest", reason) from None


def _no_claims(value: object, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "approval_mode":
                if item not in (None, *PACKAGE_MODES):
                    mode = repr(str(item)[:40])
                    raise PackageRefused("package.claims", say("agent.package.mode", mode=mode, where=where))
                continue
            if key == "env":  # variable names of a launch spec, not claims
                continue
            if isinstance(key, str) and any(c in key.casefold() for c in _CLAIMS):
                claim = repr(key[:60])
                raise PackageRefused("package.claims", say("agent.package.claims", claim=claim, where=where))
            _no_claims(item, where)
    elif isinstance(value, list):
        for item in value:
            _no_claims(item, where)


def stage(path: Path, into: Path) -> StagedPackage:
    """Check `path` and extract it into `into` (which must not exist). Raises PackageRefused
    with `into` removed."""
    try:
        return _stage(path, into)
    except ArchiveRefused as exc:
        shutil.rmtree(into, ignore_errors=True)
        raise PackageRefused(exc.rule, say(exc.key, **exc.params)) from None
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise


def _stage(path: Path, into: Path) -> StagedPackage:
    with ziparchive.open_archive(path, LIMITS) as archive:
        members = ziparchive.plan_members(archive, LIMITS, "package")
        manifests = [m for m in members if m.parts == (MANIFEST,)]
        if not manifests:
            raise PackageRefused("package.no_manifest", say("agent.package.no_manifest"))
        raw = ziparchive.read_member(archive, manifests[0], MAX_MANIFEST)
        manifest = read_manifest(raw)
        expected = manifest.file_paths()
        files = [m for m in members if not m.is_dir and m.parts != (MANIFEST,)]
        for member in files:
            if "/".join(member.parts) not in expected:
                unlisted = member.info.filename[:120]
                raise PackageRefused("package.unlisted", say("agent.package.unlisted", name=unlisted))
        present = {"/".join(m.parts) for m in files}
        for name in expected:
            if name not in present:
                raise PackageRefused("package.missing", say("agent.package.missing", name=name[:120]))
        ziparchive.extract_members(archive, files, into, LIMITS, "package")
    for name, pinned in expected.items():
        target = into / name
        data = target.read_bytes()
        if len(data) != pinned.size or hashlib.sha256(data).hexdigest() != pinned.sha256:
            raise PackageRefused("package.hash", say("agent.package.hash", name=name[:120]))
        target.chmod(0o755 if pinned.executable else 0o644)
    return StagedPackage(manifest=manifest, digest=hashlib.sha256(raw).hexdigest(), root=into)

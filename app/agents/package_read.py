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
        raise PackageRefused(
            "package.manifest", f"manifest.json is not valid JSON ({str(exc)[:80]})"
        ) from None
    if not isinstance(data, dict):
        raise PackageRefused("package.manifest", "manifest.json is not a JSON object")
    _no_claims(data, "manifest")
    try:
        return PackageManifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "manifest"
        if first["type"] == "extra_forbidden":
            reason = f"manifest.json has a field this version does not know: {where[:120]}"
        else:
            reason = f"manifest.json is not valid at {where[:120]}: {first['msg'][:200]}"
        raise PackageRefused("package.manifest", reason) from None


def _no_claims(value: object, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "approval_mode":
                if item not in (None, *PACKAGE_MODES):
                    raise PackageRefused(
                        "package.claims",
                        f"the package asks for the approval mode {str(item)[:40]!r} ({where}); a package"
                        " may ask for at most 'ask_writes' (Ask before writing), the user chooses above",
                    )
                continue
            if key == "env":  # variable names of a launch spec, not claims
                continue
            if isinstance(key, str) and any(c in key.casefold() for c in _CLAIMS):
                raise PackageRefused(
                    "package.claims",
                    f"the package claims {key[:60]!r} ({where}); approvals, grants, workspace trust"
                    " and autonomous mode are only ever given by the user",
                )
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
        raise PackageRefused(exc.rule, exc.message) from None
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise


def _stage(path: Path, into: Path) -> StagedPackage:
    with ziparchive.open_archive(path, LIMITS) as archive:
        members = ziparchive.plan_members(archive, LIMITS, "package")
        manifests = [m for m in members if m.parts == (MANIFEST,)]
        if not manifests:
            raise PackageRefused(
                "package.no_manifest", "the file has no manifest.json: not a .cashagent package"
            )
        raw = ziparchive.read_member(archive, manifests[0], MAX_MANIFEST)
        manifest = read_manifest(raw)
        expected = manifest.file_paths()
        files = [m for m in members if not m.is_dir and m.parts != (MANIFEST,)]
        for member in files:
            if "/".join(member.parts) not in expected:
                raise PackageRefused(
                    "package.unlisted",
                    f"'{member.info.filename[:120]}' is in the ZIP but not in the manifest",
                )
        present = {"/".join(m.parts) for m in files}
        for name in expected:
            if name not in present:
                raise PackageRefused(
                    "package.missing", f"the manifest lists '{name[:120]}', which the ZIP lacks"
                )
        ziparchive.extract_members(archive, files, into, LIMITS, "package")
    for name, pinned in expected.items():
        target = into / name
        data = target.read_bytes()
        if len(data) != pinned.size or hashlib.sha256(data).hexdigest() != pinned.sha256:
            raise PackageRefused(
                "package.hash", f"'{name[:120]}' does not match the sha256 the manifest pins for it"
            )
        target.chmod(0o755 if pinned.executable else 0o644)
    return StagedPackage(manifest=manifest, digest=hashlib.sha256(raw).hexdigest(), root=into)

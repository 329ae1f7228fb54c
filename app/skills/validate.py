"""Validate a Skill package on disk: SKILL.md size/encoding/frontmatter/body, name and paths."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from app.skills.frontmatter import parse_frontmatter
from app.skills.manifest import build_manifest
from app.skills.model import (
    MAX_SKILL_MD_BYTES,
    SKILL_FILE,
    InvalidSkill,
    SkillDocument,
    SkillProblem,
    ValidationResult,
    ValidSkill,
)


def parse_skill_md(raw: bytes, folder_name: str | None) -> SkillDocument | list[SkillProblem]:
    """Every SKILL.md rule that needs only the bytes (and the folder name, when it is known)."""
    if len(raw) > MAX_SKILL_MD_BYTES:
        return [
            SkillProblem(
                "skill_md.size",
                f"SKILL.md is {len(raw)} bytes; the limit is {MAX_SKILL_MD_BYTES} bytes (256 KiB).",
            )
        ]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [SkillProblem("skill_md.encoding", f"SKILL.md is not UTF-8 text (bad byte at {exc.start}).")]
    parsed = parse_frontmatter(text)
    if isinstance(parsed, SkillProblem):
        return [parsed]
    built = build_manifest(parsed.data)
    problems = built if isinstance(built, list) else []
    if not isinstance(built, list) and folder_name is not None and built.name != folder_name:
        problems.append(
            SkillProblem(
                "name.folder",
                f"'name' is '{built.name}' but the folder is '{folder_name}'; they must be equal.",
            )
        )
    if not parsed.body.strip():
        problems.append(
            SkillProblem("body.empty", "SKILL.md needs Markdown instructions after the frontmatter.")
        )
    if problems or isinstance(built, list):
        return problems
    return SkillDocument(manifest=built, body=parsed.body, sha256=hashlib.sha256(raw).hexdigest())


def _inside(root_real: str, target: str) -> bool:
    return target == root_real or target.startswith(root_real.rstrip(os.sep) + os.sep)


# As many files as a Skill ZIP may hold (app/skills/archive.py `max_members`).
MAX_PACKAGE_FILES = 512


def path_problems(root: Path) -> list[SkillProblem]:
    """Every path must stay inside the package: no absolute links, no link that leaves it; and
    at most MAX_PACKAGE_FILES files (the walk stops counting there)."""
    root_real = os.path.realpath(root)
    problems: list[SkillProblem] = []
    count = 0
    for current, dirs, files in os.walk(root, followlinks=False):
        count += len(files)
        if count > MAX_PACKAGE_FILES:
            problems.append(
                SkillProblem(
                    "package.files",
                    f"The Skill has more than {MAX_PACKAGE_FILES} files; the limit is {MAX_PACKAGE_FILES}.",
                )
            )
            break
        for entry in [*dirs, *files]:
            full = os.path.join(current, entry)
            if not os.path.islink(full):
                continue
            rel = os.path.relpath(full, root)
            link = os.readlink(full)
            if os.path.isabs(link):
                problems.append(
                    SkillProblem(
                        "path.absolute", f"'{rel}' is a link to an absolute path; use relative links."
                    )
                )
            elif not _inside(root_real, os.path.realpath(full)):
                problems.append(
                    SkillProblem("path.outside", f"'{rel}' is a link that points outside the Skill.")
                )
    return problems


def read_skill_md(root: Path) -> bytes | SkillProblem:
    path = root / SKILL_FILE
    if not path.is_file():
        return SkillProblem("skill_md.missing", "The folder has no SKILL.md file.")
    # Read one byte past the limit so a huge file is refused without loading it whole.
    with path.open("rb") as handle:
        return handle.read(MAX_SKILL_MD_BYTES + 1)


def validate_package(
    root: Path, *, folder_name: str | None = None, check_folder: bool = True
) -> ValidationResult:
    """Validate the package at `root`. `folder_name` overrides `root.name` (snapshots, staging)."""
    if root.is_symlink():
        return InvalidSkill(
            "invalid",
            root,
            (SkillProblem("package.link", "The Skill folder is a symbolic link; links are refused."),),
        )
    if not root.is_dir():
        return InvalidSkill(
            "invalid", root, (SkillProblem("package.missing", "The Skill folder does not exist."),)
        )
    expected = (folder_name or root.name) if check_folder else None
    try:
        problems = path_problems(root)
        scripts = root / "scripts"
        if scripts.is_symlink() or (scripts.exists() and not scripts.is_dir()):
            # `scripts/` is what run_skill_script runs from: a file there is a broken package.
            problems.append(SkillProblem("layout.scripts", "'scripts' must be a folder, not a file."))
        raw = read_skill_md(root)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return InvalidSkill(
            "invalid", root, (SkillProblem("package.unreadable", f"Cannot read the Skill: {reason}."),)
        )
    if isinstance(raw, SkillProblem):
        return InvalidSkill("invalid", root, (raw, *problems))
    parsed = parse_skill_md(raw, expected)
    if isinstance(parsed, list):
        problems = [*parsed, *problems]
    if problems or isinstance(parsed, list):
        return InvalidSkill("invalid", root, tuple(problems))
    return ValidSkill("valid", root, parsed)

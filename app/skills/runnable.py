"""Which files of a Skill package `run_skill_script` may run, and the digest an approval pins.

Runnable are the files under `scripts/` and the files the SKILL.md names by their relative path
(anthropics' skill-creator tells the agent to run `eval-viewer/generate_review.py`). Files under
`references/` and `assets/` are documents and data, never programs, even when SKILL.md names
them; SKILL.md itself never runs. Anything else in the package (a stray `tools.py`) does not run.

A script can import any file of its package, so an approval covers the whole package: the digest
is over every file (path and content) and every link (path and target), as the load receipt is.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

from app.skills.model import SKILL_FILE
from app.skills.resources import file_sha256

SCRIPTS_DIR = "scripts"
NEVER_RUN_DIRS = frozenset({"references", "assets"})
# "./x/y.py" is the same path as "x/y.py"; drop the "./" so the boundary rule below holds.
_DOT_SLASH = re.compile(r"(?<![\w.])\./")


def normalise(rel: str) -> str:
    return "/".join(p for p in PurePosixPath(rel).parts if p != ".")


def named_in(text: str, rel: str) -> bool:
    """Is `rel` written in `text` as a path of its own (not as the tail of a longer path, not as
    the head of a longer name)?"""
    pattern = rf"(?<![\w./-]){re.escape(rel)}(?![\w/-]|\.\w)"
    return re.search(pattern, _DOT_SLASH.sub("", text)) is not None


def refusal(rel: str, skill_md: str) -> str | None:
    """Why `rel` (already checked to be a file inside the package) may not run, or None."""
    norm = normalise(rel)
    top = norm.split("/", 1)[0]
    if norm == SKILL_FILE:
        return "SKILL.md is the Skill's instructions, not a program."
    if top in NEVER_RUN_DIRS:
        return f"files under '{top}/' are documents or data and never run."
    if top == SCRIPTS_DIR and "/" in norm:
        return None
    if named_in(skill_md, norm):
        return None
    return f"'{norm}' is neither under scripts/ nor named in the Skill's SKILL.md; only those files run."


def package_digest(package: Path) -> str:
    """sha256 over every entry of the package, sorted by path (links are not followed)."""
    rows: list[tuple[str, str]] = []
    for current, dirs, files in os.walk(package, followlinks=False):
        for name in [*dirs, *files]:
            full = os.path.join(current, name)
            rel = os.path.relpath(full, package).replace(os.sep, "/")
            if os.path.islink(full):
                rows.append((rel, "link:" + os.readlink(full)))
            elif name in files:
                rows.append((rel, "file:" + file_sha256(Path(full))))
    digest = hashlib.sha256()
    for rel, what in sorted(rows):
        digest.update(f"{rel}\x00{what}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()

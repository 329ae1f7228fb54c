"""pyproject.toml declares every third-party package that app/ imports directly, so an install
from the package metadata alone (a wheel, a frozen build on another machine) has them all."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

from tests.packaging.artifacts import ROOT

# Import name -> distribution, for the imports of other OSes (not installed here to look up).
OTHER_OS = {"AppKit": "pyobjc-framework-cocoa", "PIL": "pillow", "pystray": "pystray",
            "quickmachotkey": "quickmachotkey"}


def imported_top_names(root: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            for mod in mods:
                found.setdefault(mod.split(".")[0], str(path.relative_to(root)))
    return found


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"]) + list(project["optional-dependencies"]["desktop"])
    return {_norm(re.split(r"[=<>!~;\[ ]", spec, maxsplit=1)[0]) for spec in specs}


def test_every_directly_imported_package_is_declared() -> None:
    import importlib.metadata

    by_module = importlib.metadata.packages_distributions()
    wanted = declared()
    missing = []
    for name, where in imported_top_names(ROOT / "app").items():
        if name in sys.stdlib_module_names or name == "app":
            continue
        dists = by_module.get(name) or ([OTHER_OS[name]] if name in OTHER_OS else [])
        if not any(_norm(d) in wanted for d in dists):
            missing.append(f"{name} (imported in {where}; distribution {dists or 'unknown'})")
    assert missing == []


def test_the_scan_sees_imports_of_every_kind(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import a.b\nfrom c.d import e\nfrom . import f\nimport g as h\n")
    assert set(imported_top_names(tmp_path)) == {"a", "c", "g"}


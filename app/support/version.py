"""`cashcode --version`: the installed package's metadata, else the source tree's pyproject.toml.

Never a second hard-coded number that could drift from the one the package is built with.
"""

from __future__ import annotations

from pathlib import Path


def app_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("cashcode")
    except importlib.metadata.PackageNotFoundError:
        pass
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unknown"
    version = data.get("project", {}).get("version")
    return str(version) if version else "unknown"

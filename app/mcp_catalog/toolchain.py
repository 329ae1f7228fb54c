"""The programs an install needs: the bundled `uv` (a dependency of the app, so the frozen app
has it too) for PyPI servers, the user's Node ≥ 18 and npm for npm servers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MIN_NODE = 18
NODE_HELP = (
    "Node.js 18 or newer is needed for this server and was not found on PATH. Install Node.js "
    "(the LTS version from nodejs.org or your system's package manager), then try again."
)


@dataclass(frozen=True)
class Toolchain:
    uv: str | None
    python: str | None  # the interpreter PyPI servers' environments are made from (None: uv picks)
    node: str | None
    npm: str | None
    node_version: str = ""
    node_problem: str = ""  # why npm servers cannot be installed ("" = they can)


def find_uv() -> str | None:
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return None


def find_toolchain(env: Mapping[str, str]) -> Toolchain:
    path = env.get("PATH", os.defpath)
    node = shutil.which("node", path=path)
    npm = shutil.which("npm", path=path)
    version, problem = _node_version(node) if node else ("", NODE_HELP)
    if not problem and npm is None:
        problem = "npm was not found beside Node.js; reinstall Node.js with npm, then try again."
    # From source, the app's own Python; a frozen app has none to hand out, so uv finds (or
    # downloads into the app's cache) one itself.
    python = None if getattr(sys, "frozen", False) else sys.executable
    return Toolchain(
        uv=find_uv(), python=python, node=node, npm=npm, node_version=version, node_problem=problem
    )


def _node_version(node: str) -> tuple[str, str]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return "", NODE_HELP
    match = re.match(r"v?(\d+)\.", out.stdout.strip())
    if match is None:
        return "", NODE_HELP
    if int(match.group(1)) < MIN_NODE:
        return out.stdout.strip(), (
            f"Node.js {out.stdout.strip()} is too old: this server needs Node.js {MIN_NODE} or newer. "
            "Update Node.js, then try again."
        )
    return out.stdout.strip(), ""


def venv_bin(venv: Path, name: str) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / f"{name}.exe"
    return venv / "bin" / name

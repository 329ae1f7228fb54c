"""Install what `python build.py package` built into a private root, and run it from there."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.desktop.harness import app_dirs_env
from tests.packaging.artifacts import ROOT


@dataclass(frozen=True)
class Installed:
    root: Path  # the private root the package went into

    @property
    def cli(self) -> Path:
        return self.root / "usr" / "bin" / "cashcode"

    @property
    def program(self) -> Path:
        return self.root / "opt" / "cashcode"


def unpack_deb(deb: Path, root: Path) -> Installed:
    """`dpkg -x`: the package's files exactly as dpkg would place them, without its database."""
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True, timeout=600)
    return Installed(root)


def empty_dpkg_root(root: Path) -> Path:
    """A root with an empty dpkg database, for `dpkg --root` installs and upgrades."""
    admin = root / "var" / "lib" / "dpkg"
    for sub in ("info", "updates", "triggers", "alternatives"):
        (admin / sub).mkdir(parents=True, exist_ok=True)
    (admin / "status").touch()
    (admin / "available").touch()
    return root


def dpkg_install(root: Path, deb: Path) -> None:
    # Dependencies are the system libraries of the machine, which this private root lacks.
    result = subprocess.run(
        ["dpkg", f"--root={root}", "--force-depends", "--force-script-chrootless", "--log=/dev/null",
         "--no-triggers", "-i", str(deb)],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def installed_version(root: Path) -> str:
    out = subprocess.run(["dpkg-query", f"--root={root}", "-W", "-f=${Version}", "cashcode"],
                         capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def private_env(base: Path) -> dict[str, str]:
    """Private app folders; no test keyring (the frozen app cannot load tests' modules) and no
    PYTHONPATH (the installed program must not depend on the source tree)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHON_KEYRING_BACKEND")}
    dirs = app_dirs_env(base)
    for key in ("PYTHON_KEYRING_BACKEND", "CASHCODE_TEST_KEYRING_FILE"):
        dirs.pop(key)
    return {**env, **dirs}


def run_cli(cli: Path, args: Sequence[str], env: Mapping[str, str], cwd: Path,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), *args], env=dict(env), cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def seed_provider(env: Mapping[str, str], base_url: str, workspace: Path) -> None:
    """A key-less provider on the fake LLM (a loopback server needs none), chosen as current."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url, "--api-key", "",
         "--workspace", str(workspace)],
        cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr


def file_listing(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for current, _dirs, files in os.walk(root):
        for name in files:
            path = Path(current) / name
            found[str(path.relative_to(root))] = path.lstat().st_mtime_ns
    return found

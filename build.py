#!/usr/bin/env python3
"""CashCode's one build script: set-up, run, test, bench, type generation, packaging.

    python build.py run     # install what is missing, build the UI, start the app
    python build.py test    # the whole suite (lint, types, UI tests, Python tests, e2e)
    python build.py package [--smoke]   # bundle + .deb + AppImage; --smoke installs and starts them

Standard library only: it must work on a fresh machine that has just python3, node and npm.
Everything goes into a local venv at `.venv/`; steps that are already done are skipped
(stamp files keyed by a hash of their inputs), so repeated runs are fast.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
FRONTEND = ROOT / "frontend"
WEB_OUT = ROOT / "app" / "web"
IS_WINDOWS = os.name == "nt"
VENV_BIN = VENV / ("Scripts" if IS_WINDOWS else "bin")
VENV_PY = VENV_BIN / ("python.exe" if IS_WINDOWS else "python")

# Debian packages: what the desktop window needs to run, and what the test suite adds on top
# (a virtual display for the real window, Chromium for Playwright, CJK fonts for screenshots).
APT_RUNTIME = [
    "libegl1", "libgl1", "libfontconfig1", "libdbus-1-3", "libxkbcommon-x11-0", "libxcb-cursor0",
    "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1", "libxcb-randr0", "libxcb-render-util0",
    "libxcb-shape0", "libxcb-xinerama0", "libxcb-xkb1", "libnss3", "libxcomposite1", "libxdamage1",
    "libxrandr2", "libxtst6", "libxss1", "libasound2",
]
APT_TEST = ["xvfb", "xauth", "chromium", "fonts-noto-cjk", "git", "trayer", "desktop-file-utils"]


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: Sequence[str | os.PathLike[str]], *, cwd: Path = ROOT, env: dict[str, str] | None = None,
        check: bool = True) -> int:
    shown = " ".join(str(c) for c in cmd)
    log(f"$ {shown}")
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env)
    if check and proc.returncode != 0:
        raise SystemExit(f"[build] failed ({proc.returncode}): {shown}")
    return proc.returncode


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def tree_newest_mtime(root: Path, skip: tuple[str, ...] = ("node_modules",)) -> float:
    newest = 0.0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            newest = max(newest, (Path(dirpath) / name).stat().st_mtime)
    return newest


# ---- set-up steps -----------------------------------------------------------------------


def ensure_venv() -> None:
    if not VENV_PY.exists():
        log("creating the local venv in .venv/")
        run([sys.executable, "-m", "venv", str(VENV)])
    stamp = VENV / f".deps-{digest(ROOT / 'pyproject.toml')}"
    if stamp.exists():
        return
    log("installing pinned Python dependencies into .venv/")
    run([VENV_PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--upgrade", "pip"])
    run([VENV_PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-e", ".[desktop,dev]"])
    for old in VENV.glob(".deps-*"):
        old.unlink()
    stamp.touch()


def missing_debs(names: Sequence[str]) -> list[str]:
    if not shutil.which("dpkg-query"):
        return []  # not Debian-like: nothing we know how to check
    missing = []
    for name in names:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
        if "install ok installed" not in out.stdout:
            missing.append(name)
    return missing


def ensure_system_packages(names: Sequence[str]) -> None:
    if not sys.platform.startswith("linux"):
        return
    missing = missing_debs(names)
    if not missing:
        return
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        log(f"installing system packages: {' '.join(missing)}")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run(["apt-get", "update", "-q"], env=env)
        run(cmd, env=env)
    else:
        log("these system packages are missing; install them with:")
        log(f"  sudo {' '.join(cmd)}")


def npm() -> str:
    found = shutil.which("npm")
    if not found:
        raise SystemExit("[build] npm is missing: install Node.js 20+ (with npm) and run again.")
    return found


def ensure_frontend(force_build: bool = False) -> None:
    if not (FRONTEND / "package.json").exists():
        return
    stamp = FRONTEND / "node_modules" / f".cashcode-{digest(FRONTEND / 'package-lock.json')}"
    if not stamp.exists():
        log("installing the UI's locked dependencies (npm ci)")
        run([npm(), "ci", "--no-audit", "--no-fund"], cwd=FRONTEND)
        stamp.touch()
    index = WEB_OUT / "index.html"
    src_time = max(tree_newest_mtime(FRONTEND / "src"), tree_newest_mtime(FRONTEND / "public"),
                   (FRONTEND / "index.html").stat().st_mtime if (FRONTEND / "index.html").exists() else 0)
    if force_build or not index.exists() or index.stat().st_mtime < src_time:
        log("building the UI into app/web/")
        run([npm(), "run", "build"], cwd=FRONTEND)


def compile_bytecode() -> None:
    """Byte-compile the app (pip does this for installed packages, not for our editable one):
    with PYTHONDONTWRITEBYTECODE set, every `cashcode` run would otherwise recompile it."""
    subprocess.run([str(VENV_PY), "-m", "compileall", "-q", "app"], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL)


def setup(*, for_tests: bool) -> None:
    ensure_system_packages(APT_RUNTIME + (APT_TEST if for_tests else []))
    ensure_venv()
    ensure_frontend(force_build=for_tests)
    compile_bytecode()


# ---- commands -----------------------------------------------------------------------------


def has_display() -> bool:
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def cmd_run(extra: list[str]) -> int:
    setup(for_tests=False)
    cli = VENV_BIN / ("cashcode.exe" if IS_WINDOWS else "cashcode")
    if not has_display():
        log("no display found (DISPLAY/WAYLAND_DISPLAY unset), so the desktop window cannot open.")
        log("Use the same UI in a browser instead:")
        log(f"  {cli.relative_to(ROOT)} serve            # prints http://127.0.0.1:8765/?token=...")
        log(f"  {cli.relative_to(ROOT)} serve --port 9000 --no-open")
        log(f"or ask from the terminal: {cli.relative_to(ROOT)} ask \"hello\"")
        return 0
    return run([cli, "desktop", *extra], check=False)


def cmd_test(extra: list[str]) -> int:
    setup(for_tests=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    steps: list[tuple[str, list[str | os.PathLike[str]], Path]] = [
        ("API types up to date", [VENV_PY, "-m", "app.api.tsgen", "--check"], ROOT),
        ("ruff", [VENV_PY, "-m", "ruff", "check", "app", "tests", "bench", "build.py"], ROOT),
        ("mypy (strict: app)", [VENV_PY, "-m", "mypy", "app"], ROOT),
        ("mypy (tests)", [VENV_PY, "-m", "mypy", "tests"], ROOT),
        # The layers and "no cycles" contracts of pyproject.toml (docs/architecture.md, "Layers").
        ("import layers", [VENV_BIN / ("lint-imports.exe" if IS_WINDOWS else "lint-imports")], ROOT),
    ]
    if (FRONTEND / "package.json").exists():
        steps += [
            ("eslint", [npm(), "run", "lint"], FRONTEND),
            ("vue-tsc", [npm(), "run", "typecheck"], FRONTEND),
            ("vitest", [npm(), "test"], FRONTEND),
        ]
    steps.append(("pytest", [VENV_PY, "-m", "pytest", "-q", *extra], ROOT))
    failed: list[str] = []
    for name, cmd, cwd in steps:
        started = time.monotonic()
        code = run(cmd, cwd=cwd, env=env, check=False)
        log(f"{name}: {'ok' if code == 0 else f'FAILED ({code})'} in {time.monotonic() - started:.1f}s")
        if code != 0:
            failed.append(name)
    if failed:
        log(f"failed: {', '.join(failed)}")
        return 1
    log("all checks passed")
    return 0


def cmd_bench(extra: list[str]) -> int:
    setup(for_tests=True)
    code = 0
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        code |= run([VENV_PY, script, *extra], check=False)
    return code


def cmd_gen_types(_extra: list[str]) -> int:
    ensure_venv()
    return run([VENV_PY, "-m", "app.api.tsgen"], check=False)


def cmd_setup(_extra: list[str]) -> int:
    setup(for_tests=True)
    return 0


def cmd_package(extra: list[str]) -> int:
    """The one-folder bundle (dist/), then on Linux the .deb and the AppImage (packaging/linux.py).
    `--smoke` then installs and starts what was built (tests/packaging); `--skip-build` reuses
    dist/ as it is (e.g. to repeat only the smoke test)."""
    smoke, skip_build = "--smoke" in extra, "--skip-build" in extra
    rest = [a for a in extra if a not in ("--smoke", "--skip-build")]
    linux = sys.platform.startswith("linux")
    setup(for_tests=smoke)
    if linux:
        sys.path.insert(0, str(ROOT / "packaging"))
        import linux as linux_pkg  # packaging/linux.py

        ensure_system_packages(list(linux_pkg.TOOLS_DEBS) + (list(linux_pkg.SMOKE_DEBS) if smoke else []))
    if not skip_build:
        ensure_frontend(force_build=True)
        code = run([VENV_PY, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                    "packaging/cashcode.spec", *rest], check=False)
        if code != 0:
            return code
        if linux:
            code = run([VENV_PY, "packaging/linux.py", "all"], check=False)
            if code != 0:
                return code
    if not smoke:
        return 0
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CASHCODE_PACKAGING_SMOKE": "1"}
    return run([VENV_PY, "-m", "pytest", "-q", "tests/packaging"], env=env, check=False)


COMMANDS = {
    "setup": cmd_setup,
    "run": cmd_run,
    "test": cmd_test,
    "bench": cmd_bench,
    "gen-types": cmd_gen_types,
    "package": cmd_package,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=sorted(COMMANDS))
    parser.add_argument("extra", nargs=argparse.REMAINDER, help="passed on (e.g. pytest arguments)")
    args = parser.parse_args(argv)
    return COMMANDS[args.command](list(args.extra))


if __name__ == "__main__":
    raise SystemExit(main())

"""Where `python build.py package` leaves its output, and how tests find it (or say how to build)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
sys.path.insert(0, str(ROOT / "packaging"))

import linux as linux_pkg  # noqa: E402  packaging/linux.py
import trim  # noqa: E402  packaging/trim.py

HOW_TO_BUILD = ("no built package: run `python build.py package --smoke` (builds dist/cashcode/, the "
                ".deb and the AppImage with dpkg-dev, squashfs-tools and gcc, then runs these tests)")
VERSION = linux_pkg.project_version(ROOT)
ARCH = linux_pkg.deb_arch()


def bundle() -> Path | None:
    path = DIST / "cashcode"
    return path if (path / "cashcode").exists() else None


def deb() -> Path | None:
    path = DIST / f"cashcode_{VERSION}_{ARCH}.deb"
    return path if path.exists() else None


def appimage() -> Path | None:
    path = DIST / f"CashCode-{VERSION}-{os.uname().machine}.AppImage"
    return path if path.exists() else None


def missing_window_tools() -> str | None:
    if shutil.which("Xvfb") is None:
        return "Xvfb is not installed (apt-get install -y xvfb)"
    return None


__all__ = ["ARCH", "DIST", "HOW_TO_BUILD", "ROOT", "VERSION", "appimage", "bundle", "deb", "linux_pkg",
           "trim"]

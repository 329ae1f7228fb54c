"""What the one-folder bundle leaves out, as data the PyInstaller spec and the tests share.

PyInstaller's Qt hooks collect every translation, every Chromium locale and plugins the app never
loads. The UI is the Vue page (its own English and Simplified Chinese strings), so Qt needs only
its own English/Chinese dialogs strings and Chromium needs only the two matching locale packs.
Each rule is a glob on the destination path inside the bundle; `keep` wins over `drop`.
Standard library only: the spec imports this module inside PyInstaller.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

QT = "PyQt6/Qt6"

DROP = (
    f"{QT}/translations/*",
    f"{QT}/qml/*",
    f"{QT}/qsci/*",
    f"{QT}/plugins/sqldrivers/*",
    f"{QT}/plugins/multimedia/*",
    f"{QT}/plugins/position/*",
    f"{QT}/plugins/qmltooling/*",
    f"{QT}/plugins/designer/*",
    f"{QT}/plugins/printsupport/*",
    f"{QT}/plugins/sensors/*",
    f"{QT}/plugins/canbus/*",
    f"{QT}/plugins/texttospeech/*",
    f"{QT}/plugins/webview/*",
    f"{QT}/plugins/scenegraph/*",
    f"{QT}/plugins/renderers/*",
    f"{QT}/plugins/sceneparsers/*",
    f"{QT}/plugins/assetimporters/*",
    f"{QT}/plugins/geometryloaders/*",
    f"{QT}/lib/libQt6Pdf*",
    f"{QT}/plugins/imageformats/libqpdf.so",  # PDF as an image format: needs libQt6Pdf
    f"{QT}/lib/libQt6Quick3D*",
    f"{QT}/lib/libQt6ShaderTools*",
    f"{QT}/lib/libQt6Designer*",
    f"{QT}/lib/libQt6Multimedia*",
    f"{QT}/lib/libQt6Bluetooth*",
    f"{QT}/lib/libQt6Nfc*",
    f"{QT}/lib/libQt6Sensors*",
    f"{QT}/lib/libQt6Test*",
    f"{QT}/lib/libQt6Sql*",
    # Needed only by the QML modules dropped above; nothing the app loads links to them
    # (tests/packaging/test_bundle.py checks every kept binary finds its Qt libraries).
    f"{QT}/lib/libQt6QuickControls2*",
    f"{QT}/lib/libQt6QuickDialogs2*",
    f"{QT}/lib/libQt6QuickEffects*",
    f"{QT}/lib/libQt6QuickLayouts*",
    f"{QT}/lib/libQt6QuickParticles*",
    f"{QT}/lib/libQt6QuickShapes*",
    f"{QT}/lib/libQt6QuickTemplates2*",
    f"{QT}/lib/libQt6QuickTest*",
    f"{QT}/lib/libQt6QuickTimeline*",
    f"{QT}/lib/libQt6QuickVectorImage*",
    f"{QT}/lib/libQt6RemoteObjects*",
    f"{QT}/lib/libQt6SerialPort*",
    f"{QT}/lib/libQt6SpatialAudio*",
    f"{QT}/lib/libQt6StateMachine*",
    f"{QT}/lib/libQt6TextToSpeech*",
    f"{QT}/lib/libQt6WebChannelQuick*",
    f"{QT}/lib/libQt6WebEngineQuick*",
    f"{QT}/lib/libQt6WebSockets*",
    f"{QT}/lib/libQt6Concurrent*",
    f"{QT}/lib/libQt6PositioningQuick*",
    "*/tests/*",
    "*/test/*",
)

KEEP = (
    # Qt's own strings (file dialogs, context menus) in the two UI languages.
    f"{QT}/translations/qtbase_zh_CN.qm",
    f"{QT}/translations/qt_zh_CN.qm",
    f"{QT}/translations/qtwebengine_zh_CN.qm",
    f"{QT}/translations/qtwebengine_locales/en-US.pak",
    f"{QT}/translations/qtwebengine_locales/zh-CN.pak",
    # Python's own test helpers some libraries import at run time are not under these names;
    # the Skill creator's bundled resources are ours and must stay whole.
    "resources/*",
    "app/*",
)


@dataclass
class TrimReport:
    kept_bytes: int = 0
    dropped_bytes: int = 0
    dropped: list[str] = field(default_factory=list)

    def as_json(self) -> str:
        return json.dumps({"kept_bytes": self.kept_bytes, "dropped_bytes": self.dropped_bytes,
                           "before_bytes": self.kept_bytes + self.dropped_bytes,
                           "dropped_files": len(self.dropped), "dropped": sorted(self.dropped)}, indent=1)


def _norm(dest: str) -> str:
    return dest.replace(os.sep, "/")


def is_dropped(dest: str) -> bool:
    path = _norm(dest)
    if any(fnmatch.fnmatchcase(path, pattern) for pattern in KEEP):
        return False
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in DROP)


def _size(source: str) -> int:
    try:
        return os.path.getsize(source)
    except OSError:
        return 0


def trim(entries: Iterable[tuple[str, str, str]], report: TrimReport) -> list[tuple[str, str, str]]:
    """Filter a PyInstaller TOC (dest, source, kind); what is dropped is added to the report."""
    kept = []
    for dest, source, kind in entries:
        size = _size(source)
        if is_dropped(dest):
            report.dropped.append(_norm(dest))
            report.dropped_bytes += size
        else:
            kept.append((dest, source, kind))
            report.kept_bytes += size
    return kept


def write_report(report: TrimReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.as_json(), encoding="utf-8")


def project_version(pyproject: Path) -> str:
    """The version's one source is pyproject.toml; everything that packages reads it here."""
    import tomllib

    return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])

"""The trimmed one-folder bundle (dist/cashcode): nothing it loads was trimmed away, what the
trim rules drop is gone, and the pieces the frozen product needs at run time are inside."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging import artifacts

pytestmark = [
    pytest.mark.skipif(artifacts.bundle() is None, reason=artifacts.HOW_TO_BUILD),
    pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf missing (apt-get install binutils)"),
]


def _internal() -> Path:
    bundle = artifacts.bundle()
    assert bundle is not None
    return bundle / "_internal"


def _needed(path: Path) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, timeout=60).stdout
    return re.findall(r"\(NEEDED\).*\[(.+?)\]", out)


def test_every_qt_library_a_kept_binary_links_to_is_in_the_bundle() -> None:
    qt = _internal() / "PyQt6" / "Qt6"
    binaries = [*(_internal() / "PyQt6").glob("*.so"), *(qt / "plugins").rglob("*.so"),
                qt / "libexec" / "QtWebEngineProcess", *(qt / "lib").glob("*.so*")]
    missing = sorted({f"{b.name} -> {lib}" for b in binaries for lib in _needed(b)
                      if lib.startswith("libQt6") and not (qt / "lib" / lib).exists()})
    assert missing == []


def test_trimmed_parts_are_gone_and_the_two_ui_languages_stay() -> None:
    qt = _internal() / "PyQt6" / "Qt6"
    assert not (qt / "qml").exists()
    locales = sorted(p.name for p in (qt / "translations" / "qtwebengine_locales").iterdir())
    assert locales == ["en-US.pak", "zh-CN.pak"]
    assert not list((qt / "lib").glob("libQt6Quick3D*"))


def test_the_frozen_product_carries_its_ui_resources_and_version_source() -> None:
    inside = _internal()
    assert (inside / "app" / "web" / "index.html").is_file()
    assert (inside / "resources" / "skills" / "cashcode-skill-creator" / "SKILL.md").is_file()
    assert (inside / "resources" / "icons" / "cashcode.png").is_file()
    assert (inside / "app" / "mcp" / "child_guard.py").is_file()
    assert f'version = "{artifacts.VERSION}"' in (inside / "pyproject.toml").read_text(encoding="utf-8")

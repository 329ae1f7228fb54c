"""The pieces of the Linux installers that need no built bundle: desktop entries, icons, control."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.packaging.artifacts import ROOT, VERSION, linux_pkg

ICONS = ROOT / "resources" / "icons"


def test_the_launcher_and_the_open_with_entry_for_skill_zips(tmp_path: Path) -> None:
    linux_pkg.stage_share(tmp_path)
    apps = tmp_path / "applications"
    main = (apps / "cashcode.desktop").read_text(encoding="utf-8")
    skill = (apps / "cashcode-import-skill.desktop").read_text(encoding="utf-8")
    assert "Exec=cashcode desktop\n" in main and "MimeType" not in main
    assert "Exec=cashcode desktop --import-skill %f" in skill
    assert "MimeType=application/zip;" in skill and "NoDisplay=true" in skill
    assert "Name=CashCode" in skill  # what "Open with" shows
    for size in linux_pkg.ICON_SIZES:
        assert (tmp_path / f"icons/hicolor/{size}x{size}/apps/cashcode.png").is_file()
    assert (tmp_path / "icons/hicolor/scalable/apps/cashcode.svg").is_file()


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate missing (apt-get install -y desktop-file-utils)")
def test_desktop_entries_pass_the_freedesktop_validator(tmp_path: Path) -> None:
    linux_pkg.stage_share(tmp_path)
    for entry in sorted((tmp_path / "applications").glob("*.desktop")):
        result = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_the_control_file_carries_the_project_version_and_the_runtime_libraries() -> None:
    text = linux_pkg.control_text(VERSION, 1234)
    assert f"Version: {VERSION}\n" in text
    assert "Installed-Size: 1234\n" in text
    assert "libnss3" in text and "libxcb-cursor0" in text
    assert all(line.startswith(" ") for line in text.split("Description:")[1].splitlines()[1:])


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_icon_files_exist_at_every_size_and_match_the_svg_source() -> None:
    for size in linux_pkg.ICON_SIZES:
        assert _png_size((ICONS / f"cashcode-{size}.png").read_bytes()) == (size, size)
    ico = (ICONS / "cashcode.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 6
    icns = (ICONS / "cashcode.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    assert (ICONS / "cashcode.svg").read_text(encoding="utf-8").startswith("<svg")


def test_reproducible_timestamps_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert linux_pkg.source_date_epoch(ROOT) == 1700000000


def test_the_ui_shows_the_same_icon_as_the_installers() -> None:
    # The About section and the browser tab use frontend/public/favicon.svg.
    favicon = ROOT / "frontend" / "public" / "favicon.svg"
    assert favicon.read_bytes() == (ICONS / "cashcode.svg").read_bytes()


def test_a_double_clicked_mcpb_opens_the_bundle_preview(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    linux_pkg.stage_share(tmp_path)
    entry = (tmp_path / "applications" / "cashcode-install-bundle.desktop").read_text(encoding="utf-8")
    assert "Exec=cashcode desktop %f\n" in entry and "MimeType=application/x-mcpb;\n" in entry
    assert "NoDisplay=true" in entry
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    root = ET.parse(tmp_path / "mime" / "packages" / "cashcode-mcpb.xml").getroot()
    kind = root.find("m:mime-type", ns)
    assert kind is not None and kind.get("type") == "application/x-mcpb"
    assert [g.get("pattern") for g in kind.findall("m:glob", ns)] == ["*.mcpb"]

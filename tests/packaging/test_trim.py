"""The bundle's trim rules (packaging/trim.py): what goes, what must stay, and the size report."""

from __future__ import annotations

from pathlib import Path

from tests.packaging.artifacts import ROOT, trim

QT = "PyQt6/Qt6"


def test_only_the_two_ui_languages_of_qt_and_chromium_stay() -> None:
    assert not trim.is_dropped(f"{QT}/translations/qtwebengine_locales/en-US.pak")
    assert not trim.is_dropped(f"{QT}/translations/qtwebengine_locales/zh-CN.pak")
    assert not trim.is_dropped(f"{QT}/translations/qtbase_zh_CN.qm")
    assert trim.is_dropped(f"{QT}/translations/qtwebengine_locales/de.pak")
    assert trim.is_dropped(f"{QT}/translations/qtbase_de.qm")


def test_unused_qt_parts_go_and_what_the_web_view_links_to_stays() -> None:
    assert trim.is_dropped(f"{QT}/qml/QtQuick3D/libqquick3dplugin.so")
    assert trim.is_dropped(f"{QT}/lib/libQt6QuickControls2Material.so.6")
    assert trim.is_dropped(f"{QT}/plugins/sqldrivers/libqsqlite.so")
    for kept in ("lib/libQt6WebEngineCore.so.6", "lib/libQt6Quick.so.6", "lib/libQt6Qml.so.6",
                 "plugins/platforms/libqxcb.so", "resources/qtwebengine_resources.pak",
                 "libexec/QtWebEngineProcess"):
        assert not trim.is_dropped(f"{QT}/{kept}"), kept


def test_our_own_files_are_never_dropped_even_under_a_test_folder() -> None:
    assert not trim.is_dropped("resources/skills/cashcode-skill-creator/tests/x.md")
    assert not trim.is_dropped("app/web/index.html")
    assert trim.is_dropped("somelib/tests/test_x.py")


def test_trim_filters_a_toc_and_reports_the_bytes(tmp_path: Path) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    big.write_bytes(b"x" * 1000)
    small.write_bytes(b"y" * 10)
    report = trim.TrimReport()
    toc = [(f"{QT}/qml/a.so", str(big), "BINARY"), ("app/web/index.html", str(small), "DATA")]
    kept = trim.trim(toc, report)
    assert kept == [("app/web/index.html", str(small), "DATA")]
    assert (report.dropped_bytes, report.kept_bytes, report.dropped) == (1000, 10, [f"{QT}/qml/a.so"])
    out = tmp_path / "r" / "report.json"
    trim.write_report(report, out)
    assert '"before_bytes": 1010' in out.read_text(encoding="utf-8")


def test_the_version_has_one_source() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{trim.project_version(ROOT / "pyproject.toml")}"' in text

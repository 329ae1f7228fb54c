"""Realistic packages (the shape of anthropics/skills): import, list, export, re-import."""

from __future__ import annotations

import os
import random
import stat
import zipfile
from pathlib import Path

from .helpers import Env, make_env, skill_md, tree_digest, zip_folder


def realistic_package(base: Path, name: str = "docx") -> Path:
    """80+ files: nested schemas, agents/, themes/, reference/, LICENSE.txt, fonts, PDFs."""
    rng = random.Random(7)
    folder = base / name
    files: dict[str, bytes] = {
        "SKILL.md": skill_md(
            name,
            description="Create, edit and analyse Word documents. Use for .docx work.",
            extra="license: Proprietary. LICENSE.txt has complete terms\n",
            # As in the real package, SKILL.md names its root files (a flat ZIP's unnamed root
            # file is refused as a stray, decision 332).
            body="# DOCX\n\nRead `reference/ooxml.md` first, and `docx-js.md` for new documents.\n",
        ).encode(),
        "LICENSE.txt": b"All rights reserved.\n",
        "ooxml.md": b"# OOXML notes\n",
        "docx-js.md": b"# docx-js\n",
        "reference/forms.md": b"# Forms\n",
        "reference/api.md": b"# API\n",
        "agents/reviewer.md": b"# Reviewer agent\n",
        "themes/ocean.json": b'{"primary": "#036"}\n',
        "scripts/__init__.py": b"",
        "scripts/document.py": b"#!/usr/bin/env python3\nprint('ok')\n",
        "assets/fonts/Inter-Regular.ttf": rng.randbytes(40_000),
        "assets/fonts/Inter-Bold.ttf": rng.randbytes(41_000),
        "assets/sample.pdf": b"%PDF-1.7\n" + rng.randbytes(30_000),
        "assets/empty.bin": b"",
    }
    for i in range(70):
        files[f"scripts/office/schemas/ISO-IEC29500-4_2016/part{i // 10}/schema{i}.xsd"] = (
            f'<?xml version="1.0"?><xsd:schema id="{i}"/>\n'.encode()
        )
    for rel, data in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    os.chmod(folder / "scripts" / "document.py", 0o755)
    return folder


def test_a_realistic_package_imports_byte_for_byte_and_lists(tmp_path: Path, env: Env) -> None:
    source = realistic_package(tmp_path / "src")
    archive = zip_folder(source, tmp_path / "docx.zip", prefix="docx")
    assert len(zipfile.ZipFile(archive).infolist()) >= 80
    installed = env.store.import_zip(archive)
    assert installed.name == "docx" and installed.source == "user"
    assert tree_digest(env.roots.user / "docx") == tree_digest(source)
    entry = env.catalog.refresh().get("docx")
    assert entry is not None and entry.source == "user" and entry.selectable
    assert entry.manifest.license == "Proprietary. LICENSE.txt has complete terms"
    assert os.stat(env.roots.user / "docx" / "scripts" / "document.py").st_mode & stat.S_IXUSR


def test_skill_md_at_the_zip_root_imports_under_its_name(tmp_path: Path, env: Env) -> None:
    source = realistic_package(tmp_path / "src", "pdf")
    installed = env.store.import_zip(zip_folder(source, tmp_path / "flat.zip"))
    assert installed.path == env.roots.user / "pdf"
    assert tree_digest(installed.path) == tree_digest(source)


def test_the_zip_folder_name_does_not_need_to_match_the_skill_name(tmp_path: Path, env: Env) -> None:
    source = realistic_package(tmp_path / "src", "xlsx")
    installed = env.store.import_zip(zip_folder(source, tmp_path / "dl.zip", prefix="skills-main-xlsx"))
    assert installed.path == env.roots.user / "xlsx"


def test_macos_finder_junk_is_skipped(tmp_path: Path, env: Env) -> None:
    archive = tmp_path / "finder.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("demo/SKILL.md", skill_md())
        z.writestr("demo/.DS_Store", b"\0\0\0\1Bud1")
        z.writestr("__MACOSX/demo/._SKILL.md", b"\0\5\x16\7")
    installed = env.store.import_zip(archive)
    assert sorted(p.name for p in installed.path.iterdir()) == ["SKILL.md"]


def test_export_then_import_into_a_fresh_data_dir_gives_identical_files(tmp_path: Path, env: Env) -> None:
    source = realistic_package(tmp_path / "src")
    env.store.import_zip(zip_folder(source, tmp_path / "in.zip", prefix="docx"))
    (env.roots.user / "docx" / "empty-folder").mkdir()
    exported = env.store.export("docx", tmp_path / "out.zip")
    fresh = make_env(tmp_path / "fresh")
    installed = fresh.store.import_zip(exported)
    assert tree_digest(installed.path) == tree_digest(env.roots.user / "docx")
    assert os.stat(installed.path / "scripts" / "document.py").st_mode & stat.S_IXUSR


def test_export_is_deterministic(tmp_path: Path, env: Env) -> None:
    source = realistic_package(tmp_path / "src")
    env.store.import_zip(zip_folder(source, tmp_path / "in.zip", prefix="docx"))
    first = env.store.export("docx", tmp_path / "a.zip").read_bytes()
    os.utime(env.roots.user / "docx" / "LICENSE.txt", (1, 1))  # timestamps must not matter
    second = env.store.export("docx", tmp_path / "b.zip").read_bytes()
    assert first == second
    names = [i.filename for i in zipfile.ZipFile(tmp_path / "a.zip").infolist()]
    assert names[0] == "docx/" and names[1] == "docx/LICENSE.txt"


def test_a_builtin_skill_can_be_exported_and_imports_elsewhere(tmp_path: Path, env: Env) -> None:
    realistic_package(env.builtin, "pptx")
    exported = env.store.export("pptx", tmp_path / "pptx.zip")
    fresh = make_env(tmp_path / "fresh")
    assert tree_digest(fresh.store.import_zip(exported).path) == tree_digest(env.builtin / "pptx")

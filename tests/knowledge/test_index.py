"""Indexing a folder made here (Markdown, code, PDF, .docx, Chinese, HTML, a 25 MB file, a
.gitignore'd folder): exact citations, line ranges, heading trails and skip reasons."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, err, ok
from tests.knowledge.consistency import check_consistent
from tests.knowledge.corpus import build


async def _search(app: Any, query: str, **extra: Any) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = (await ok(app, "knowledge.search", {"query": query, **extra}))["hits"]
    return hits


def _top(hits: list[dict[str, Any]], root: Path) -> tuple[str, str]:
    return hits[0]["citation"].removeprefix(str(root) + "/"), hits[0]["heading"]


async def test_a_folder_is_indexed_with_exact_citations(
    make_app: AppMaker, tmp_path: Path, paths: AppPaths
) -> None:
    root = build(tmp_path / "docs")
    app, _rec = await make_app()
    added = await ok(app, "knowledge.add", {"path": str(root)})
    assert added["base"]["name"] == "docs" and added["base"]["roots"] == [str(root)]
    assert added["run"]["indexed"] == 6 and added["base"]["files"] == 6 and not added["base"]["pending"]

    assert _top(await _search(app, "install quietly"), root) == ("guide.md:5-8", "Guide > Install")
    usage = await _search(app, "frobnicate widget")
    assert _top(usage, root) == ("guide.md:10-17", "Guide > Usage")
    assert usage[0]["text"].startswith("## Usage\n\n```python\ndef frobnicate(widget):")
    # identifiers split at camelCase and snake_case, stems meet ("parsing configs")
    assert _top(await _search(app, "parsing configs"), root) == ("src/config.py:1-10", "")
    assert _top(await _search(app, "http response"), root) == ("src/config.py:1-10", "")
    assert _top(await _search(app, "离线搜索"), root) == ("notes-zh.txt:1-5", "")
    assert _top(await _search(app, "pineapple"), root) == ("paper.pdf:1-2", "page 1")
    assert _top(await _search(app, "marmalade"), root) == ("report.docx:1-2", "Quarterly report")
    assert _top(await _search(app, "oranges"), root) == ("report.docx:3-4", "Quarterly report > Risks")
    kumquat = await _search(app, "kumquat")
    assert [h["citation"].removeprefix(str(root) + "/") for h in kumquat] == ["page.html:1-3"]
    assert "script" not in kumquat[0]["text"]  # HTML: text only
    assert await _search(app, "rhubarb") == []  # ignored, hidden and binary files are not indexed

    skipped = {
        i["path"].removeprefix(str(root) + "/"): i["reason"]
        for i in (await ok(app, "knowledge.skipped", {"name": "docs"}))["items"]
    }
    assert skipped == {
        ".gitignore": "hidden file",
        ".hidden": "hidden folder",
        "blob": "binary file",
        "build": "ignored by .gitignore",
        "debug.log": "ignored by .gitignore",
        "huge.txt": "larger than 20 MB",
        "image.png": "binary file",
    }
    assert check_consistent(paths.db_path) == 6


async def test_a_changed_file_replaces_only_its_own_chunks(
    make_app: AppMaker, tmp_path: Path, paths: AppPaths
) -> None:
    root = build(tmp_path / "docs")
    app, _rec = await make_app()
    await ok(app, "knowledge.add", {"path": str(root), "name": "Docs"})

    def chunk_ids() -> dict[str, list[int]]:
        conn = sqlite3.connect(paths.db_path)
        try:
            rows = conn.execute(
                "SELECT f.path, c.id FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id"
            ).fetchall()
        finally:
            conn.close()
        out: dict[str, list[int]] = {}
        for path, cid in rows:
            out.setdefault(Path(path).name, []).append(cid)
        return out

    before = chunk_ids()
    (root / "notes-zh.txt").write_text("全新的内容：向量检索。\n", encoding="utf-8")
    again = await ok(app, "knowledge.add", {"path": str(root), "name": "Docs"})  # known root: a quick scan
    assert again["run"]["indexed"] == 1
    after = chunk_ids()
    assert {k: v for k, v in after.items() if k != "notes-zh.txt"} == {
        k: v for k, v in before.items() if k != "notes-zh.txt"
    }
    assert after["notes-zh.txt"] != before["notes-zh.txt"]
    assert _top(await _search(app, "向量检索", kb="Docs"), root) == ("notes-zh.txt:1-1", "")
    assert await _search(app, "离线搜索") == []
    assert check_consistent(paths.db_path) == 6


async def test_bases_are_managed_and_bad_input_changes_nothing(make_app: AppMaker, tmp_path: Path) -> None:
    root = build(tmp_path / "docs")
    app, _rec = await make_app()
    assert (await err(app, "knowledge.add", {"path": "relative/folder"}))["code"] == "invalid"
    assert (await err(app, "knowledge.add", {"path": str(tmp_path / "missing")}))["code"] == "not_found"
    assert (await err(app, "knowledge.add", {"path": str(root), "name": "  "}))["code"] == "invalid"
    assert (await ok(app, "knowledge.list"))["bases"] == []
    assert (await err(app, "knowledge.search", {"query": "x", "kb": "nope"}))["code"] == "not_found"

    await ok(app, "knowledge.create", {"name": "A"})
    assert (await err(app, "knowledge.create", {"name": "A"}))["code"] == "conflict"
    await ok(app, "knowledge.add_root", {"name": "A", "path": str(root / "guide.md")})
    renamed = await ok(app, "knowledge.rename", {"name": "A", "new_name": "Guides"})
    assert (renamed["name"], renamed["files"], renamed["roots"]) == ("Guides", 1, [str(root / "guide.md")])
    assert [h["base"] for h in await _search(app, "installer")] == ["Guides"]
    removed = await ok(app, "knowledge.remove_root", {"name": "Guides", "path": str(root / "guide.md")})
    assert (removed["base"]["files"], removed["base"]["chunks"]) == (0, 0)
    await ok(app, "knowledge.delete", {"name": "Guides"})
    assert (await ok(app, "knowledge.list"))["bases"] == []
    assert (await err(app, "knowledge.delete", {"name": "Guides"}))["code"] == "not_found"


async def test_the_apps_own_folders_are_refused_and_skipped(make_app: AppMaker, paths: AppPaths) -> None:
    app, _rec = await make_app()
    paths.ensure()
    (paths.data_dir / "x.md").write_text("private\n", encoding="utf-8")
    refused = await err(app, "knowledge.add", {"path": str(paths.data_dir)})
    assert refused["code"] == "invalid" and "own folders" in refused["message"]
    home = paths.data_dir.parent
    (home / "readme.md").write_text("public notes\n", encoding="utf-8")
    added = await ok(app, "knowledge.add", {"path": str(home)})
    assert added["base"]["files"] == 1
    skipped = {
        i["path"]: i["reason"] for i in (await ok(app, "knowledge.skipped", {"name": "home"}))["items"]
    }
    assert skipped[str(paths.data_dir)] == "CashCode's own folder"

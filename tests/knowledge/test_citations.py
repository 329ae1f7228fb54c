"""Citations the UI opens (`knowledge.resolve` / `locate` / `read`, and the desktop's
`desktop.open_path`) through the real app on a real indexed folder: only indexed files of a
knowledge base, still inside its root, are found, shown or opened; traversal, outside paths,
skipped files and symbolic-link swaps after indexing are refused (and nothing is opened)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from app.desktop.open_path import register_open_routes, system_opener
from tests.api.conftest import AppMaker, err, ok
from tests.knowledge.corpus import GUIDE, build


async def _indexed(make_app: AppMaker, tmp_path: Path) -> tuple[Any, Path]:
    app, _ = await make_app()
    root = build(tmp_path / "docs").resolve()
    await ok(app, "knowledge.add", {"path": str(root), "name": "Docs"})
    return app, root


async def _read(app: Any, path: Path | str, start: int, end: int) -> dict[str, Any]:
    return await ok(app, "knowledge.read", {"path": str(path), "start_line": start, "end_line": end})


async def _resolve(app: Any, *paths: str) -> list[dict[str, Any] | None]:
    files: list[dict[str, Any] | None] = (await ok(app, "knowledge.resolve", {"paths": list(paths)}))["files"]
    return files


async def test_cited_paths_resolve_to_indexed_files_only(make_app: AppMaker, tmp_path: Path) -> None:
    app, root = await _indexed(make_app, tmp_path)
    (tmp_path / "outside.md").write_text("outside\n", encoding="utf-8")
    guide = {"base": "Docs", "path": str(root / "guide.md"), "folder": str(root)}
    config = {"base": "Docs", "path": str(root / "src" / "config.py"), "folder": str(root / "src")}
    got = await _resolve(
        app,
        str(root / "guide.md"),  # absolute, as knowledge_search cites it
        "guide.md",  # relative to the base's folder
        "src/config.py",
        "docs/src/config.py",  # shortened by the model: the unique indexed file ending so
        f"{root}/src/../guide.md",  # normalised: still the same indexed file
        f"{root}/../outside.md",  # traversal out of the root
        "../outside.md",
        str(tmp_path / "outside.md"),
        "/etc/passwd",
        "build/out.md",  # .gitignored: never indexed
        ".hidden/secret.md",
        "debug.log",
        "huge.txt",  # over the size cap
        str(root),  # a folder is not a cited file
        "",
        "nope.md",
    )
    assert got == [guide, guide, config, config, guide] + [None] * 11


async def test_the_viewer_gets_the_cited_lines_with_context(make_app: AppMaker, tmp_path: Path) -> None:
    app, root = await _indexed(make_app, tmp_path)
    excerpt = await _read(app, root / "guide.md", 5, 8)
    lines = GUIDE.split("\n")[:-1]
    assert excerpt["file"] == {"base": "Docs", "path": str(root / "guide.md"), "folder": str(root)}
    assert (excerpt["start_line"], excerpt["end_line"], excerpt["first_line"]) == (5, 8, 1)
    assert excerpt["lines"] == lines and excerpt["total_lines"] == len(lines)
    assert excerpt["lines"][4:8] == ["## Install", "", lines[6], lines[7]]
    # A range past the end is clamped to the file.
    past = await _read(app, root / "guide.md", 90, 99)
    assert (past["start_line"], past["end_line"]) == (len(lines), len(lines))
    # A PDF shows its extracted text, the lines its citations count.
    pdf = await _read(app, root / "paper.pdf", 1, 2)
    assert pdf["lines"][0] == "[page 1]" and "Quantum pineapple results" in "\n".join(pdf["lines"])


async def test_a_long_file_is_cut_around_the_citation(make_app: AppMaker, tmp_path: Path) -> None:
    app, _ = await make_app()
    folder = (tmp_path / "long").resolve()
    folder.mkdir()
    text = "".join(f"line {n}\n" for n in range(1, 5001)) + "x" * 5000 + "\n"
    (folder / "long.txt").write_text(text, encoding="utf-8")
    await ok(app, "knowledge.add", {"path": str(folder), "name": "Long"})
    e = await _read(app, folder / "long.txt", 100, 4000)
    assert e["first_line"] == 80 and len(e["lines"]) == 400 and e["lines"][0] == "line 80"
    tail = await _read(app, folder / "long.txt", 5001, 5001)
    assert tail["lines"][-1] == "x" * 2000 + "…"  # an over-long line is cut


@pytest.mark.parametrize(
    "path",
    [
        "guide.md",  # read needs the absolute path `resolve` answered
        "{root}/../outside.md",
        "{tmp}/outside.md",
        "/etc/passwd",
        "{root}/.hidden/secret.md",
        "{root}/build/out.md",
        "{root}",
        "{root}/guide.md\0x",
    ],
)
async def test_reading_anything_else_is_refused(make_app: AppMaker, tmp_path: Path, path: str) -> None:
    app, root = await _indexed(make_app, tmp_path)
    (tmp_path / "outside.md").write_text("outside secret\n", encoding="utf-8")
    wanted = path.format(root=root, tmp=tmp_path)
    error = await err(app, "knowledge.read", {"path": wanted, "start_line": 1, "end_line": 1})
    assert error["code"] in ("not_found", "invalid")
    assert "rhubarb" not in str(error) and "outside secret" not in str(error)  # no content leaks
    assert (await err(app, "knowledge.locate", {"path": wanted}))["code"] in ("not_found", "invalid")


async def test_a_file_or_folder_swapped_for_a_symlink_after_indexing_is_refused(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, root = await _indexed(make_app, tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "config.py").write_text("PASSWORD = 'hunter2'\n", encoding="utf-8")
    (secret / "notes.txt").write_text("hunter2\n", encoding="utf-8")
    # Both rows are still in the index: no watcher runs in this rig.
    (root / "notes-zh.txt").unlink()
    (root / "notes-zh.txt").symlink_to(secret / "notes.txt")
    for child in (root / "src").iterdir():
        child.unlink()
    (root / "src").rmdir()
    (root / "src").symlink_to(secret, target_is_directory=True)
    for path in (root / "notes-zh.txt", root / "src" / "config.py"):
        error = await err(app, "knowledge.read", {"path": str(path), "start_line": 1, "end_line": 1})
        assert error["code"] == "not_found" and "hunter2" not in str(error)
        assert (await err(app, "knowledge.locate", {"path": str(path)}))["code"] == "not_found"
    assert await _resolve(app, "notes-zh.txt", "src/config.py") == [None, None]


async def test_a_file_grown_past_the_cap_is_not_read(make_app: AppMaker, tmp_path: Path) -> None:
    app, root = await _indexed(make_app, tmp_path)
    with (root / "guide.md").open("ab") as f:
        f.truncate(21 * 1024 * 1024)
    error = await err(app, "knowledge.read", {"path": str(root / "guide.md"), "start_line": 1, "end_line": 1})
    assert error["code"] == "invalid" and "larger than 20 MB" in error["message"]


async def test_a_single_file_root_has_no_folder_to_open(make_app: AppMaker, tmp_path: Path) -> None:
    app, _ = await make_app()
    note = (tmp_path / "alone.md").resolve()
    note.write_text("# Alone\n\nA lonely pomelo.\n", encoding="utf-8")
    await ok(app, "knowledge.add", {"path": str(note), "name": "One"})
    alone = {"base": "One", "path": str(note), "folder": None}
    assert await _resolve(app, str(note), "alone.md") == [alone, alone]


# ---- the desktop opener: the real route and app, a recording opener at the OS boundary ---------


async def test_open_path_opens_only_what_knowledge_locates(make_app: AppMaker, tmp_path: Path) -> None:
    app, root = await _indexed(make_app, tmp_path)
    assert (await err(app, "desktop.open_path", {"path": str(root / "guide.md")}))["code"] == "unsupported"
    opened: list[str] = []
    register_open_routes(app, opened.append)
    await ok(app, "desktop.open_path", {"path": str(root / "guide.md")})
    await ok(app, "desktop.open_path", {"path": str(root / "src" / "config.py"), "folder": True})
    assert opened == [str(root / "guide.md"), str(root / "src")]
    (tmp_path / "outside.md").write_text("x\n", encoding="utf-8")
    outside = str(tmp_path / "outside.md")
    for bad in (f"{root}/../outside.md", outside, "guide.md", f"{root}/.hidden/secret.md", "-x"):
        assert (await err(app, "desktop.open_path", {"path": bad}))["code"] == "not_found"
    assert opened == [str(root / "guide.md"), str(root / "src")]


async def test_open_folder_of_a_single_file_root_is_refused(make_app: AppMaker, tmp_path: Path) -> None:
    app, _ = await make_app()
    note = (tmp_path / "alone.md").resolve()
    note.write_text("A lonely pomelo.\n", encoding="utf-8")
    await ok(app, "knowledge.add", {"path": str(note)})
    opened: list[str] = []
    register_open_routes(app, opened.append)
    assert (await err(app, "desktop.open_path", {"path": str(note), "folder": True}))["code"] == "invalid"
    assert opened == []


@pytest.mark.skipif(sys.platform != "linux", reason="xdg-open is the Linux opener")
def test_the_system_opener_runs_xdg_open_with_the_path_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "opened.txt"
    stub = bin_dir / "xdg-open"  # the OS boundary: a stub program that records its arguments
    stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "$#" "$@" > "{record}"\n', encoding="utf-8")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    target = tmp_path / "a file; $(rm -rf x).md"
    system_opener(str(target))
    import time

    deadline = time.monotonic() + 10
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert record.read_text(encoding="utf-8").splitlines() == ["1", str(target)]
    with pytest.raises(ValueError):
        system_opener("-relative")


@pytest.mark.skipif(sys.platform != "linux", reason="xdg-open is the Linux opener")
def test_the_system_opener_reports_xdg_open_failing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """xdg-open exits 3 when no application takes the file: that is a failure to report (issue 41),
    not an opened file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "xdg-open"
    stub.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(OSError, match="exited with status 3"):
        system_opener(str(tmp_path / "a.md"))

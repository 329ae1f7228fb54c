"""Which dropped paths the window's drop handler turns into import requests."""

from __future__ import annotations

from pathlib import Path

from app.desktop.dnd import skill_paths


def _event(*paths: str | None, dropzone: str | None = None) -> dict[str, object]:
    files = [{"name": Path(p).name if p else "x", "pywebviewFullPath": p} for p in paths]
    target = {"dataset": {"dropzone": dropzone}} if dropzone else {}
    return {"type": "drop", "target": target, "dataTransfer": {"files": files}}


def test_zips_and_folders_are_import_requests_other_files_are_not(tmp_path: Path) -> None:
    folder = tmp_path / "my-skill"
    folder.mkdir()
    archive = tmp_path / "Skill Ü.ZIP"
    other = tmp_path / "notes.txt"
    event = _event(str(archive), str(other), str(folder), None)
    assert skill_paths(event) == [str(archive), str(folder)]


def test_drops_on_the_composer_are_left_to_the_composer(tmp_path: Path) -> None:
    assert skill_paths(_event(str(tmp_path / "a.zip"), dropzone="composer")) == []
    assert skill_paths({"type": "drop"}) == []


def test_mcpb_files_are_bundle_requests_anywhere_and_never_skills(tmp_path: Path) -> None:
    from app.desktop.dnd import bundle_paths

    bundle = tmp_path / "Tool Kit.MCPB"
    bundle.write_bytes(b"PK")
    folder = tmp_path / "dir.mcpb"  # a folder named like a bundle is not one
    folder.mkdir()
    event = _event(str(bundle), str(tmp_path / "notes.txt"), str(folder), str(tmp_path / "gone.mcpb"))
    assert bundle_paths(event) == [str(bundle)]
    assert skill_paths(event) == [str(folder)]
    assert bundle_paths(_event(str(bundle), dropzone="composer")) == [str(bundle)]


def test_drops_on_the_knowledge_view_are_knowledge_requests_and_nothing_else(tmp_path: Path) -> None:
    """Issue 41 item 6: a file (or folder) dropped on the Knowledge view is offered to a
    knowledge base, never taken for a Skill or a bundle."""
    from app.desktop.dnd import bundle_paths, knowledge_paths

    folder = tmp_path / "notes"
    folder.mkdir()
    doc = tmp_path / "report.md"
    doc.write_text("# Report\n", encoding="utf-8")
    archive = tmp_path / "docs.zip"
    archive.write_bytes(b"PK")
    bundle = tmp_path / "kit.mcpb"
    bundle.write_bytes(b"PK")
    event = _event(str(doc), str(folder), str(archive), str(bundle), str(tmp_path / "gone.md"), None)
    on_knowledge = {**event, "cashcodeDropzone": "knowledge"}
    assert knowledge_paths(on_knowledge) == [str(doc), str(folder), str(archive), str(bundle)]
    assert skill_paths(on_knowledge) == [] and bundle_paths(on_knowledge) == []
    # Anywhere else the drop means what it meant before.
    assert knowledge_paths(event) == [] and knowledge_paths({**event, "cashcodeDropzone": "chat"}) == []
    assert skill_paths(event) == [str(folder), str(archive)]

"""The `skills.*` routes on a real app: list/search with pages, content + save with a hash
precondition, enable/disable, delete + versions + rollback, validate warnings, import preview
and import (path and uploaded bytes), export, diagnostics; real anthropics/skills shapes."""

from __future__ import annotations

import base64
import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.skills.helpers import skill_md, write_skill, zip_folder
from tests.skills.test_skill_zip_realistic import realistic_package

_SENTENCE = "Use this Skill when the user wants to create, edit or analyse documents. "
LONG_DESCRIPTION = (_SENTENCE * 15)[:1067].rstrip().ljust(1067, "x") + "."  # 1,068 like the real one


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


async def test_list_pages_and_searches_with_sources_and_shadowing(
    make_app: AppMaker, paths: AppPaths, home: Path
) -> None:
    user = paths.data_dir / "skills" / "user"
    for i in range(25):
        write_skill(user, f"skill-{i:02d}", skill_md(f"skill-{i:02d}", description=f"Number {i} helper."))
    write_skill(home / ".claude" / "skills", "skill-03", skill_md("skill-03", description="External copy."))
    write_skill(user, "broken", skill_md("broken", body=""))
    app, _ = await make_app(env={"HOME": str(home)})
    page1 = await ok(app, "skills.list", {"page": 1, "page_size": 10})
    assert page1["total"] == 26 and len(page1["items"]) == 10  # 25 + the builtin creator
    page3 = await ok(app, "skills.list", {"page": 3, "page_size": 10})
    assert len(page3["items"]) == 6
    item = next(i for i in page1["items"] if i["name"] == "skill-03")
    assert item["source"] == "user" and [s["source"] for s in item["shadows"]] == ["external"]
    assert item["shadows"][0]["path"].startswith("~")  # the home folder is redacted
    assert [d["directory"] for d in page1["invalid"]] == ["broken"]
    found = await ok(app, "skills.list", {"query": "number 07 helper"})  # "7" alone: no token
    assert found["items"][0]["name"] == "skill-07" and found["items"][0]["score"] > 0


async def test_content_save_conflict_versions_rollback_enable_delete(
    make_app: AppMaker, paths: AppPaths, home: Path
) -> None:
    app, _ = await make_app(env={"HOME": str(home)})
    created = await ok(app, "skills.create", {"content": skill_md("notes", description="Take notes.")})
    assert created["source"] == "user" and created["writable"]
    content = await ok(app, "skills.content", {"name": "notes"})
    assert content["mutable"] and content["enabled"] and len(content["hash"]) == 64
    edited = content["content"].replace("Do the steps.", "Do better steps.")
    saved = await ok(app, "skills.save", {"name": "notes", "content": edited, "base_hash": content["hash"]})
    assert saved["hash"] != content["hash"]
    stale = await err(
        app, "skills.save", {"name": "notes", "content": edited + "x", "base_hash": content["hash"]}
    )
    assert stale["code"] == "conflict"
    bad = await err(
        app, "skills.save", {"name": "notes", "content": "no frontmatter", "base_hash": saved["hash"]}
    )
    assert bad["code"] == "invalid"
    versions = (await ok(app, "skills.versions", {"name": "notes"}))["versions"]
    assert [v["reason"] for v in versions] == ["replace"]
    rolled = await ok(app, "skills.rollback", {"name": "notes", "version": versions[0]["id"]})
    assert rolled["hash"] == content["hash"]
    off = await ok(app, "skills.set_enabled", {"name": "notes", "enabled": False})
    assert not off["enabled"] and not off["selectable"]
    builtin = await err(
        app, "skills.save", {"name": "cashcode-skill-creator", "content": "x", "base_hash": "0" * 64}
    )
    assert builtin["code"] in ("invalid", "conflict")
    await ok(app, "skills.delete", {"name": "notes"})
    assert (await err(app, "skills.content", {"name": "notes"}))["code"] == "not_found"
    assert (await err(app, "skills.get", {"name": "../etc"}))["code"] == "invalid"


async def test_real_skill_shapes_import_with_warnings_load_and_read_through_the_tools(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths, home: Path, tmp_path: Path
) -> None:
    source = realistic_package(tmp_path / "src", "docx")
    md = source / "SKILL.md"
    md.write_text(
        md.read_text().replace(
            "Create, edit and analyse Word documents. Use for .docx work.", LONG_DESCRIPTION
        )
    )
    archive = zip_folder(source, tmp_path / "docx.zip", prefix="docx")
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # as desktop/serve: the prompt lists the catalog

    preview = await ok(app, "skills.import_preview", {"path": str(archive)})
    assert preview["valid"] and preview["name"] == "docx" and preview["file_count"] >= 80
    assert "LICENSE.txt" in preview["files"] and preview["conflict"] is None and preview["size"] > 100_000
    assert any("1068 characters" in w for w in preview["warnings"])
    assert not (paths.data_dir / "skills" / "user" / "docx").exists()  # preview installs nothing

    item = await ok(app, "skills.import", {"path": str(archive)})
    assert item["name"] == "docx" and item["warnings"] and item["selectable"]
    again = await ok(app, "skills.import_preview", {"path": str(archive)})
    assert "already exists" in (again["conflict"] or "")
    validation = await ok(app, "skills.validate", {"name": "docx"})
    assert validation["valid"] and any("1068" in w for w in validation["warnings"])

    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "skill_load", "arguments": {"name": "docx"}}]},
        {
            "tool_calls": [
                {"name": "skill_read_resource", "arguments": {"name": "docx", "path": "reference/forms.md"}}
            ]
        },
        {
            "tool_calls": [
                {
                    "name": "skill_read_resource",
                    "arguments": {"name": "docx", "path": "assets/fonts/Inter-Bold.ttf"},
                }
            ]
        },
        {
            "tool_calls": [
                {"name": "skill_read_resource", "arguments": {"name": "docx", "path": "../../etc/passwd"}}
            ]
        },
        {"text": "ok"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "edit the docx", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    tools = [m["content"] for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"]
    assert (
        "# DOCX" in tools[0] and "scripts/office/schemas/ISO-IEC29500-4_2016/part6/schema69.xsd" in tools[0]
    )
    assert tools[1] == "[text file 'reference/forms.md', 8 bytes, 1 line]\n# Forms\n"  # says its size
    assert "binary file" in tools[2] and "41000 bytes" in tools[2]
    assert tools[3].startswith("Error:") and "'..'" in tools[3]
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    listed = next(line for line in system.splitlines() if line.startswith("- docx: "))
    assert listed.endswith(" […]") and len(listed) < 320  # cut with a marker
    assert LONG_DESCRIPTION not in system


async def test_upload_export_roundtrip_and_archive_layout_errors(
    make_app: AppMaker, home: Path, tmp_path: Path
) -> None:
    app, _ = await make_app(env={"HOME": str(home)})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("up/SKILL.md", skill_md("uploaded", description="From the browser."))
        z.writestr("up/ref.md", "# ref")
    data = base64.b64encode(buf.getvalue()).decode()
    preview = await ok(app, "skills.import_preview", {"data_base64": data, "filename": "up.zip"})
    assert preview["name"] == "uploaded" and preview["files"] == ["SKILL.md", "ref.md"]
    await ok(app, "skills.import", {"data_base64": data, "filename": "up.zip"})
    exported = await ok(app, "skills.export", {"name": "uploaded"})
    assert exported["filename"] == "uploaded.zip"
    names = zipfile.ZipFile(io.BytesIO(base64.b64decode(exported["data_base64"]))).namelist()
    assert [n for n in names if not n.endswith("/")] == ["uploaded/SKILL.md", "uploaded/ref.md"]

    beside = io.BytesIO()
    with zipfile.ZipFile(beside, "w") as z:
        z.writestr("pkg/SKILL.md", skill_md("pkg"))
        z.writestr("README.md", "stray")
        z.writestr("notes.txt", "stray")
    refused = await err(
        app,
        "skills.import",
        {"data_base64": base64.b64encode(beside.getvalue()).decode(), "filename": "b.zip"},
    )
    assert refused["code"] == "invalid"
    assert (
        "beside its Skill folder 'pkg/'" in refused["message"]
        and "README.md, notes.txt" in refused["message"]
    )
    assert (await err(app, "skills.import", {"path": "relative.zip"}))["code"] == "invalid"
    assert (await err(app, "skills.import", {"data_base64": "!!", "filename": "x.zip"}))["code"] == "invalid"
    assert (await err(app, "skills.import", {}))["code"] == "invalid"


async def test_a_folder_imports_and_an_invalid_package_is_moved_aside(
    make_app: AppMaker, paths: AppPaths, home: Path, tmp_path: Path
) -> None:
    folder = write_skill(tmp_path / "src", "folder-skill")
    broken = write_skill(paths.data_dir / "skills" / "user", "broken", skill_md("broken", body=""))
    app, _ = await make_app(env={"HOME": str(home)})
    item = await ok(app, "skills.import", {"path": str(folder)})
    assert item["name"] == "folder-skill"
    await ok(app, "skills.invalid_delete", {"source": "user", "directory": "broken"})
    assert not broken.exists()
    assert (await ok(app, "skills.list"))["invalid"] == []


async def test_missing_dependencies_are_visible_but_not_selectable(
    make_app: AppMaker, paths: AppPaths, home: Path
) -> None:
    extra = (
        "requires:\n  bins: [definitely-not-a-program-xyz]\n  env: [SOME_TOKEN_XYZ]\n  tools: [read_file]\n"
    )
    write_skill(paths.data_dir / "skills" / "user", "needy", skill_md("needy", extra=extra))
    app, _ = await make_app(env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    item = (await ok(app, "skills.list", {"query": "needy"}))["items"][0]
    assert not item["selectable"] and item["enabled"]
    assert item["missing"] == [
        "program 'definitely-not-a-program-xyz'",
        "environment variable 'SOME_TOKEN_XYZ'",
    ]

"""Import of a cdy-agent workspace written by the real cdy-agent 0.1.5 (its own storage code)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import AppMaker, ok
from tests.importer.fakes import FakeTargets, tree_state

CDY_VERSION = "0.1.5"
WRITER = Path(__file__).with_name("cdy_writer.py")


def _cache_root() -> Path:
    configured = os.environ.get("CASHCODE_TEST_CACHE", "").strip()
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "build" / "test-cache"


@pytest.fixture(scope="session")
def cdy_agent_package() -> Path:
    """cdy-agent installed (without its dependencies: its storage code is stdlib-only) into a
    cache folder the test run owns (build/test-cache, or $CASHCODE_TEST_CACHE); reused later."""
    target = _cache_root() / f"cdy-agent-{CDY_VERSION}"
    if not (target / "cdy_agent" / "memory" / "sqlite.py").is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".cdy-agent-", dir=target.parent))
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(staging),
                f"cdy-agent=={CDY_VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, f"installing cdy-agent {CDY_VERSION} failed: {result.stderr[-2000:]}"
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)  # complete installs only: an interrupted one never looks ready
    return target


@pytest.fixture
def cdy_workspace(tmp_path: Path, cdy_agent_package: Path) -> tuple[Path, dict[str, Any]]:
    workspace = tmp_path / "project"
    workspace.mkdir()
    env = {**os.environ, "PYTHONPATH": str(cdy_agent_package)}
    result = subprocess.run(
        [sys.executable, str(WRITER), str(workspace)], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    skills = workspace / ".cdy-agent" / "skills"
    for name, text in (
        (
            "pdf-processing",
            "---\nname: pdf-processing\ndescription: Extract text from PDFs.\n---\n# PDF\nSteps.\n",
        ),
        ("Bad_Name", "---\nname: Bad_Name\ndescription: x\n---\nbody\n"),
    ):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(text, encoding="utf-8")
    # One note the user damaged by hand: the rest of the file still imports.
    notes_path = workspace / ".cdy-agent" / "notes.json"
    notes = json.loads(notes_path.read_text(encoding="utf-8"))
    notes["items"].append(
        {"id": "not-a-uuid", "title": "", "content": "x", "created_at": "2026-01-01T00:00:00Z"}
    )
    notes_path.write_text(json.dumps(notes), encoding="utf-8")
    return workspace, json.loads(result.stdout)


async def test_a_cdy_agent_workspace_is_imported_once_and_left_untouched(
    make_app: AppMaker,
    cdy_workspace: tuple[Path, dict[str, Any]],
    target_routes: None,
) -> None:
    workspace, ids = cdy_workspace
    fakes = FakeTargets()
    app, _ = await make_app(capabilities=[fakes])
    before = tree_state(workspace)

    preview = await ok(app, "import.preview", {"path": str(workspace)})
    assert preview["source"] == "cdy_agent"
    assert fakes.calls == []
    report = await ok(app, "import.run", {"path": str(workspace)})
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for item in report["items"]:
        by_kind.setdefault(item["kind"], []).append(item)

    messages = (await ok(app, "chats.get", {"chat_id": ids["session"]}))["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "What is uv?"),
        ("assistant", "A Python tool."),
        ("user", "Thanks"),
        ("assistant", "You're welcome."),
    ]
    assert [m["cursor"] for m in messages] == [1, 2, 3, 4]
    assert fakes.routes_called("memories.add") == [
        {"content": "Python projects use uv for dependencies", "tags": ["python", "tooling"]}
    ]
    assert fakes.routes_called("notes.create") == [
        {"title": "Release steps", "content": "Tag, build, publish."}
    ]
    assert [i["status"] for i in by_kind["note"]] == ["imported", "invalid"]
    assert sorted(p["title"] for p in fakes.routes_called("todos.create")) == [
        "Fix the build",
        "Write the changelog",
    ]
    assert len(fakes.routes_called("todos.complete")) == 1  # "Fix the build" was done
    grants = (await ok(app, "approvals.list"))["grants"]
    assert [(g["kind"], g["key"], g["workspace"]) for g in grants] == [
        ("exec", ["/usr/bin/python3", "script.py"], os.path.realpath(workspace))
    ]
    skills = {i["name"]: i["status"] for i in by_kind["skill"]}
    assert skills == {"pdf-processing": "imported", "Bad_Name": "invalid"}
    assert report["imported"] == 1 + 1 + 1 + 2 + 1 + 1  # chat, memory, note, todos, grant, Skill

    again = await ok(app, "import.run", {"path": str(workspace / ".cdy-agent")})
    assert again["imported"] == 0
    assert {i["status"] for i in again["items"]} == {"already_imported", "invalid"}
    assert len(fakes.routes_called("memories.add")) == 1
    assert len((await ok(app, "approvals.list"))["grants"]) == 1
    assert tree_state(workspace) == before
    assert not any(p.name.endswith(("-wal", "-shm")) for p in (workspace / ".cdy-agent").iterdir())

"""The Skill runtime tools driven by the scripted LLM over real HTTP: search → load →
read_resource → run_skill_script, receipts in history, activations in later prompts, digest
re-check, Stop, agent-created Skills and the protected Skill roots."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired, ToolResultEvent
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send
from tests.api.test_stop_and_concurrency import _bounded, _process_gone

SCRIPT = "import os, sys\nprint('hello', *sys.argv[1:], os.path.basename(os.environ['SKILL_DIR']))\n"


def _write_skill(root: Path, name: str, *, description: str, body: str, files: dict[str, str]) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\nversion: '1.0'\n---\n{body}\n", encoding="utf-8"
    )
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


@pytest.fixture
def pdf_skill(paths: AppPaths) -> Path:
    return _write_skill(
        paths.data_dir / "skills" / "user",
        "pdf-tools",
        description="Extract text and tables from PDF files.",
        body="# PDF\n\nBODY-MARKER: read reference/forms.md then run scripts/hello.py.",
        files={"reference/forms.md": "FORMS-MARKER", "scripts/hello.py": SCRIPT},
    )


def _tool(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool_name, "arguments": arguments}]}


def _tool_contents(request: Any) -> list[str]:
    return [m["content"] for m in request.body["messages"] if m["role"] == "tool"]


async def _approval(events: Recorder, turn_id: str) -> ApprovalRequired:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found: ApprovalRequired = next(
        e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn_id
    )
    return found


async def test_search_load_read_and_run_end_to_end_with_a_receipt_in_history(
    make_app: AppMaker, fake_llm: Any, home: Path, pdf_skill: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # as desktop/serve do: the prompt then lists the catalog
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_search", query="pdf tables"),
        _tool("skill_load", name="pdf-tools"),
        _tool("skill_read_resource", name="pdf-tools", path="reference/forms.md"),
        _tool("run_skill_script", name="pdf-tools", path="scripts/hello.py", args=["a b"]),
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "summarise report.pdf", pid)
    approval = await _approval(events, turn)
    assert approval.tool == "run_skill_script" and approval.can_always
    assert "pdf-tools/scripts/hello.py" in approval.detail
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"

    reqs = fake_llm.model_requests()[-5:]
    system = reqs[0].body["messages"][0]["content"]
    assert "skill_search" in system and "- pdf-tools: Extract text" in system
    assert "pdf-tools [user]" in _tool_contents(reqs[1])[0]
    loaded = _tool_contents(reqs[2])[1]
    assert loaded.startswith("[Skill loaded: pdf-tools v1.0 ")
    assert "BODY-MARKER" in loaded and "- scripts/hello.py" in loaded and "- reference/forms.md" in loaded
    assert _tool_contents(reqs[3])[2] == "[text file 'reference/forms.md', 12 bytes, 1 line]\nFORMS-MARKER"
    assert "hello a b pdf-tools" in _tool_contents(reqs[4])[3]

    stored = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    load_msg = next(m for m in stored if m["role"] == "tool" and m["name"] == "skill_load")
    assert (
        load_msg["content"].startswith("[Skill loaded: pdf-tools v1.0 ")
        and "BODY-MARKER" not in load_msg["content"]
    )

    # A later turn: the history has the receipt only, the system prompt lists the activation.
    fake_llm.script({"text": "again"})
    turn2 = await send(app, chat["id"], "and now?", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    later = fake_llm.model_requests()[-1].body["messages"]
    assert "activated earlier in this chat" in later[0]["content"]
    assert "- pdf-tools v1.0 " in later[0]["content"]
    assert all("BODY-MARKER" not in (m.get("content") or "") for m in later[1:])

    # Changed since: not treated as loaded any more.
    skill_md = pdf_skill / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("BODY-MARKER", "NEW-BODY"), encoding="utf-8")
    fake_llm.script({"text": "third"})
    turn3 = await send(app, chat["id"], "still?", pid)
    assert (await events.turn_end(turn3)).type == "turn_done"
    assert "activated earlier" not in fake_llm.model_requests()[-1].body["messages"][0]["content"]


async def test_a_script_changed_between_approval_and_run_is_refused(
    make_app: AppMaker, fake_llm: Any, home: Path, pdf_skill: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="pdf-tools"),
        _tool("run_skill_script", name="pdf-tools", path="scripts/hello.py"),
        {"text": "ok"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "run it", pid)
    approval = await _approval(events, turn)
    (pdf_skill / "scripts" / "hello.py").write_text("print('evil')\n", encoding="utf-8")
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    result = [e for e in events.of(ToolResultEvent) if e.turn_id == turn][-1]
    assert not result.ok and "changed after it was approved" in result.output
    assert "evil" not in result.output


async def test_always_allow_covers_that_digest_only(
    make_app: AppMaker, fake_llm: Any, home: Path, pdf_skill: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    run = _tool("run_skill_script", name="pdf-tools", path="scripts/hello.py")
    fake_llm.script(_tool("skill_load", name="pdf-tools"), run, {"text": "ok"})
    turn = await send(app, chat["id"], "run", pid)
    await ok(
        app,
        "chat.approve",
        {"approval_id": (await _approval(events, turn)).approval_id, "decision": "always"},
    )
    assert (await events.turn_end(turn)).type == "turn_done"
    grants = (await ok(app, "approvals.list"))["grants"]
    assert [g["kind"] for g in grants] == ["skill_script"] and grants[0]["key"][:2] == [
        "pdf-tools",
        "scripts/hello.py",
    ]

    fake_llm.script(run, {"text": "ok"})
    turn2 = await send(app, chat["id"], "again", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    assert "approval_required" not in events.types(turn2)

    (pdf_skill / "scripts" / "hello.py").write_text(SCRIPT + "print('v2')\n", encoding="utf-8")
    fake_llm.script(run, {"text": "ok"})
    turn3 = await send(app, chat["id"], "changed", pid)
    await _approval(events, turn3)  # a new digest asks again
    await ok(app, "chat.cancel", {"chat_id": chat["id"]})


async def test_stop_kills_a_running_scripts_children(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths, tmp_path: Path
) -> None:
    marker = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time\n"
        f"c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(marker)!r}, 'w').write(str(c.pid))\n"
        "time.sleep(600)\n"
    )
    _write_skill(
        paths.data_dir / "skills" / "user",
        "slow",
        description="Slow.",
        body="# Slow",
        files={"scripts/run.py": code},
    )
    app, events = await make_app(env={"HOME": str(home), "PATH": os.environ["PATH"]})
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="slow"),
        _tool("run_skill_script", name="slow", path="scripts/run.py", timeout=300),
        {"text": "never"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "go", pid)
    await _bounded(lambda: marker.exists() and marker.read_text().strip() != "")
    child = int(marker.read_text())
    await ok(app, "chat.cancel", {"chat_id": chat["id"]})
    await events.until(lambda: "turn_cancelled" in events.types(turn))
    await _bounded(lambda: _process_gone(child))


async def test_disabled_and_unknown_skills_are_not_loaded(
    make_app: AppMaker, fake_llm: Any, home: Path, pdf_skill: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "skills.set_enabled", {"name": "pdf-tools", "enabled": False})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(_tool("skill_load", name="pdf-tools"), _tool("skill_load", name="nope"), {"text": "ok"})
    chat = await ok(app, "chats.create")
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat["id"],
            "text": "use @pdf-tools please",
            "model": {"provider_id": pid, "model": "fake-model"},
            "mentions": [{"kind": "skill", "name": "pdf-tools", "label": "PDF"}],
        },
    )
    assert (await events.turn_end(ref["turn_id"])).type == "turn_done"
    results = [e for e in events.of(ToolResultEvent) if e.turn_id == ref["turn_id"]]
    assert [r.ok for r in results] == [False, False]
    assert "disabled" in results[0].output and "No Skill named 'nope'" in results[1].output
    system = fake_llm.model_requests()[-3].body["messages"][0]["content"]
    assert "- pdf-tools: disabled by the user" in system
    assert "- pdf-tools: Extract" not in system  # a disabled Skill is not offered


async def test_typed_at_name_selects_a_skill_like_a_mention(
    make_app: AppMaker, fake_llm: Any, home: Path, pdf_skill: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "ok"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "please use @pdf-tools on it (mail me@example.com)", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert "selected these Skills" in system and "- pdf-tools: Extract" in system
    assert "example" not in system.split("selected these Skills")[1]


VALID_DRAFT = "---\nname: weekly-report\ndescription: Build the weekly report.\n---\n# Weekly\n\nSteps.\n"


async def test_asking_the_agent_to_create_a_skill_ends_with_it_in_the_catalog(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="cashcode-skill-creator"),
        _tool(
            "agent_skill_manage",
            action="create",
            content=VALID_DRAFT,
            files={"reference/template.md": "# Template"},
        ),
        {"text": "Created weekly-report."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "save this workflow as a skill", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    results = [e for e in events.of(ToolResultEvent) if e.turn_id == turn]
    assert [r.ok for r in results] == [True, True], results
    listed = await ok(app, "skills.list", {"query": "weekly report"})
    assert [(i["name"], i["source"]) for i in listed["items"]][:1] == [("weekly-report", "agent")]
    detail = await ok(app, "skills.get", {"name": "weekly-report"})
    assert "reference/template.md" in detail["files"]

    # update keeps a version and needs a valid draft
    content = await ok(app, "skills.content", {"name": "weekly-report"})
    fake_llm.script(
        _tool(
            "agent_skill_manage",
            action="update",
            name="weekly-report",
            base_hash=content["hash"],
            content=VALID_DRAFT.replace("Steps.", "Better steps."),
        ),
        {"text": "Updated."},
    )
    turn2 = await send(app, chat["id"], "improve it", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    assert "Better steps." in (await ok(app, "skills.content", {"name": "weekly-report"}))["content"]
    assert len((await ok(app, "skills.versions", {"name": "weekly-report"}))["versions"]) == 1


async def test_an_invalid_draft_is_a_failure_and_nothing_is_saved(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    bad = "---\nname: Bad Name\ndescription: x\n---\n# body\n"
    fake_llm.script(_tool("agent_skill_manage", action="create", content=bad), {"text": "Sorry."})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "make a skill", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    result = next(e for e in events.of(ToolResultEvent) if e.turn_id == turn)
    assert not result.ok and "not a valid Skill" in result.output and "nothing was saved" in result.output
    agent_root = paths.data_dir / "skills" / "agent"
    assert not agent_root.exists() or [p.name for p in agent_root.iterdir()] == []


@pytest.mark.parametrize(
    "target",
    [".agents/skills/x/SKILL.md", "{home}/.claude/skills/x/SKILL.md", "{data}/skills/agent/x/SKILL.md"],
)
async def test_generic_write_tools_refuse_every_skill_root(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths, tmp_path: Path, target: str
) -> None:
    # The workspace holds the home and data folders here, so only the Skill-root rule can refuse.
    workspace = tmp_path
    ws_home = workspace / "h"
    path = target.format(home=ws_home, data=paths.data_dir)
    app, events = await make_app(env={"HOME": str(ws_home)}, workspace=workspace)
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(_tool("write_file", path=path, content="---\nname: x\n---\n"), {"text": "ok"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write a skill by hand", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    result = next(e for e in events.of(ToolResultEvent) if e.turn_id == turn)
    assert not result.ok and "protected Skill folder" in result.output, result.output
    written = Path(path) if os.path.isabs(path) else workspace / path
    assert not written.exists()


def test_the_stored_receipt_is_json_safe() -> None:
    # The receipt is plain text: it must survive the JSON round trip of the chat store.
    from app.skills.tools import receipt

    text = receipt("pdf-tools", "1.0", "a" * 64)
    assert json.loads(json.dumps(text)) == "[Skill loaded: pdf-tools v1.0 aaaaaaaaaaaa]"
    assert sys.maxsize > 0

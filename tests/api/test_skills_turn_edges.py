"""Skills as the model sees them, through turns against the scripted LLM (issue 40 items 11, 12):
the prompt when every Skill is disabled, `metadata`, sizes and categories in `skill_load`, sizes
in reads, the `reason` of `agent_skill_manage` and where a refused write points."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired, ToolResultEvent
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, ok, send


def _tool(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool_name, "arguments": arguments}]}


def _tool_contents(request: Any) -> list[str]:
    return [m["content"] for m in request.body["messages"] if m["role"] == "tool"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


@pytest.fixture
def charts(paths: AppPaths) -> Path:
    folder = paths.data_dir / "skills" / "user" / "charts"
    (folder / "references").mkdir(parents=True)
    (folder / "assets").mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: charts\ndescription: Draw charts from tables.\n"
        "metadata:\n  author: Ada Lovelace\n  homepage: example.org/charts\n---\n"
        "# Charts\n\nRead references/guide.md.\n",
        encoding="utf-8",
    )
    (folder / "references" / "guide.md").write_text("line one\nline two\n", encoding="utf-8")
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(2038))
    return folder


async def test_with_every_skill_disabled_the_prompt_says_so_not_that_none_is_installed(
    make_app: AppMaker, fake_llm: Any, home: Path, charts: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # a long-lived surface: the prompt lists the catalog
    for item in (await ok(app, "skills.list", {"page_size": 200}))["items"]:
        await ok(app, "skills.set_enabled", {"name": item["name"], "enabled": False})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "ok"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert "No Skills are installed" not in system
    assert "installed Skills are disabled by the user" in system
    assert "- charts:" not in system


async def test_skill_load_shows_metadata_sizes_and_categories_and_reads_say_their_size(
    make_app: AppMaker, fake_llm: Any, home: Path, charts: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="charts"),
        _tool("skill_read_resource", name="charts", path="references/guide.md"),
        _tool("skill_read_resource", name="charts", path="assets/logo.png"),
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "draw a chart", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    loaded, text, binary = _tool_contents(fake_llm.model_requests()[-1])
    assert "Metadata: author: Ada Lovelace" in loaded and "Metadata: homepage: example.org/charts" in loaded
    assert "reference files:\n- references/guide.md (18 B)" in loaded, loaded
    assert "asset files:\n- assets/logo.png (2.0 KB)" in loaded
    assert "instructions files:\n- SKILL.md (" in loaded
    assert text.startswith("[text file 'references/guide.md', 18 bytes, 2 lines]\nline one\n")
    assert "is a binary file" in binary and "2048 bytes" in binary
    detail = await ok(app, "skills.get", {"name": "charts"})
    assert detail["metadata"] == {"author": "Ada Lovelace", "homepage": "example.org/charts"}


DRAFT = "---\nname: weekly-report\ndescription: Build the weekly report.\n---\n# Weekly\n\nSteps.\n"


async def test_agent_skill_manage_shows_its_reason_in_the_approval(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    why = "You asked me to keep this workflow for next week."
    fake_llm.script(_tool("agent_skill_manage", action="create", content=DRAFT, reason=why), {"text": "ok"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "save this as a skill", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    approval = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn)
    assert approval.detail.startswith(f"Why: {why}\n"), approval.detail
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    result = next(e for e in events.of(ToolResultEvent) if e.turn_id == turn)
    assert result.ok, result.output
    # A reason of several lines is refused before anyone is asked.
    fake_llm.script(
        _tool("agent_skill_manage", action="create", content=DRAFT, reason="one\ntwo"), {"text": "ok"}
    )
    turn2 = await send(app, chat["id"], "again", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    refused = next(e for e in events.of(ToolResultEvent) if e.turn_id == turn2)
    assert not refused.ok and "'reason' must be one line" in refused.output
    assert "approval_required" not in events.types(turn2)


async def test_a_refused_write_into_a_skill_folder_points_to_agent_skill_manage(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)}, workspace=tmp_path)
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    target = tmp_path / ".agents" / "skills" / "x" / "SKILL.md"  # the workspace's Skills root
    fake_llm.script(_tool("write_file", path=str(target), content="---\nname: x\n---\n"), {"text": "ok"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write a skill by hand", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    shown = _tool_contents(fake_llm.model_requests()[-1])[0]
    assert "protected Skill folder" in shown and "use agent_skill_manage" in shown, shown
    assert not target.exists()

"""The agents list and each turn's agent scope are cached (issue 38 benchmark: 50 agents cost what
one does); these guard the invalidation. An agent added, edited or removed (by this app or by
another process on the same profile, the CLI here) shows in the very next `agents.list` and the
next turn; a Skill that appears on disk shows in the next turn of an agent that names it. Real
SQLite, the real CLI in a subprocess, the scripted LLM's request log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.api.app import CashCodeApp
from app.settings.paths import AppPaths
from app.skills.events import SkillsChanged
from tests.agents.test_agent_scope import A_SKILL, B_SKILL, home
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send
from tests.cli.conftest import base_env, cashcode

__all__ = ["home"]

NEW_SKILL = "gamma-later"


async def _names(app: CashCodeApp) -> dict[str, dict[str, Any]]:
    listed = await ok(app, "agents.list")
    return {a["spec"]["name"]: a for a in listed["agents"]}


async def _system_of_turn(app: CashCodeApp, events: Recorder, fake_llm: Any, chat_id: str, pid: str) -> str:
    fake_llm.script({"text": "ok"})
    turn = await send(app, chat_id, "hello", pid)
    end = await events.turn_end(turn, timeout_s=30)
    assert end.type == "turn_done", end
    system: str = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    return system


def _cli_env(paths: AppPaths) -> dict[str, str]:
    """The CLI on the app's own profile (the same database); its agents commands ask no model."""
    return base_env(paths.data_dir.parent)


async def test_each_add_edit_remove_and_new_last_used_shows_in_the_next_list(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    first = await ok(app, "agents.list")
    assert [a["id"] for a in first["agents"]] == ["default"] and first["last_used"] == "default"
    assert await ok(app, "agents.list") == first  # served again: the same list

    alpha = await ok(app, "agents.add", {"spec": {"name": "Alpha", "emoji": "📝", "skills": [A_SKILL]}})
    assert list(await _names(app)) == ["default", "Alpha"]
    await ok(app, "agents.edit", {"agent_id": alpha["id"], "spec": {"name": "Alpha", "emoji": "🧭"}})
    assert (await _names(app))["Alpha"]["spec"]["emoji"] == "🧭"
    copy = await ok(app, "agents.duplicate", {"agent_id": alpha["id"]})
    assert list(await _names(app)) == ["default", "Alpha", "Alpha copy"]

    # The last used agent is part of the list: a chat of another agent stored since moves it.
    chat = await ok(app, "chats.create", {"agent_id": copy["id"]})
    await _system_of_turn(app, events, fake_llm, chat["id"], pid)
    assert (await ok(app, "agents.list"))["last_used"] == copy["id"]

    await ok(app, "agents.remove", {"agent_id": copy["id"]})
    listed = await ok(app, "agents.list")
    assert [a["spec"]["name"] for a in listed["agents"]] == ["default", "Alpha"]
    assert listed["last_used"] == "default"  # its chat went back to the default agent


async def test_an_agent_added_or_edited_by_another_process_shows_in_the_next_list_and_turn(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths, workspace: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # as desktop and serve: the prompt lists the Skill catalog
    pid = await add_provider(app, fake_llm, "chat_completions")
    spec = {"name": "Alpha", "persona": "You are PERSONA-ONE.", "skills": [A_SKILL]}
    alpha = await ok(app, "agents.add", {"spec": spec})
    chat = await ok(app, "chats.create", {"agent_id": alpha["id"]})
    system = await _system_of_turn(app, events, fake_llm, chat["id"], pid)
    assert system.startswith("You are PERSONA-ONE.") and f"- {A_SKILL}:" in system and B_SKILL not in system
    assert list(await _names(app)) == ["default", "Alpha"]  # the list is now kept

    env = _cli_env(paths)
    edited = cashcode(
        "agents", "edit", "Alpha", "--persona", "You are PERSONA-TWO.", "--skills", B_SKILL,
        env=env, cwd=workspace,
    )  # fmt: skip
    assert edited.returncode == 0, edited.stderr
    added = cashcode("agents", "add", "Gamma", "--persona", "You are GAMMA.", env=env, cwd=workspace)
    assert added.returncode == 0, added.stderr

    names = await _names(app)
    assert list(names) == ["default", "Alpha", "Gamma"]
    assert names["Alpha"]["spec"]["persona"] == "You are PERSONA-TWO."
    assert names["Alpha"]["spec"]["skills"] == [B_SKILL]
    # The chat's next turn runs as the agent is now: its new persona and Skill, not the old ones.
    system = await _system_of_turn(app, events, fake_llm, chat["id"], pid)
    assert system.startswith("You are PERSONA-TWO.") and "PERSONA-ONE" not in system
    assert f"- {B_SKILL}:" in system and A_SKILL not in system

    removed = cashcode("agents", "remove", "Gamma", env=env, cwd=workspace)
    assert removed.returncode == 0, removed.stderr
    assert list(await _names(app)) == ["default", "Alpha"]
    shown = json.loads(cashcode("agents", "list", "--json", env=env, cwd=workspace).stdout)
    assert [a["spec"]["name"] for a in shown] == ["default", "Alpha"]


async def test_a_skill_that_appears_on_disk_shows_in_the_next_turn_of_an_agent_naming_it(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # the Skill hot-reload watcher runs
    pid = await add_provider(app, fake_llm, "chat_completions")
    spec = {"name": "Alpha", "persona": "You are ALPHA.", "skills": [A_SKILL, NEW_SKILL]}
    alpha = await ok(app, "agents.add", {"spec": spec})
    chat = await ok(app, "chats.create", {"agent_id": alpha["id"]})
    system = await _system_of_turn(app, events, fake_llm, chat["id"], pid)
    assert f"- {A_SKILL}:" in system and NEW_SKILL not in system

    folder = paths.data_dir / "skills" / "user" / NEW_SKILL
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {NEW_SKILL}\ndescription: 'Added later: gamma rays.'\n---\n# {NEW_SKILL}\n",
        encoding="utf-8",
    )
    await events.until(lambda: bool(events.of(SkillsChanged)), timeout_s=10)  # the watcher saw it
    system = await _system_of_turn(app, events, fake_llm, chat["id"], pid)
    assert f"- {NEW_SKILL}: Added later: gamma rays." in system and B_SKILL not in system

"""Settings → Tools: `tools.list` names every tool the model can get, grouped by where it comes
from, with the policy that applies to it, and lists them without loading or starting anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.skills import tool_specs
from tests.api.conftest import AppMaker, ok

MEMORY = [
    "remember_memory",
    "search_memories",
    "update_memory",
    "forget_memory",
    "memory_source",
    "save_memory",
    "create_note",
    "list_notes",
    "get_note",
    "delete_note",
    "create_todo",
    "list_todos",
    "complete_todo",
    "delete_todo",
]
SKILLS = ["skill_search", "skill_load", "skill_read_resource", "run_skill_script", "agent_skill_manage"]


async def test_every_tool_a_turn_can_offer_is_listed_once_with_its_group(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    listed = (await ok(app, "tools.list"))["tools"]
    names = [t["name"] for t in listed]
    assert len(names) == len(set(names))
    groups = {t["name"]: t["group"] for t in listed}
    assert {n: groups[n] for n in ["read_file", "exec", "web_fetch"]} == dict.fromkeys(
        ["read_file", "exec", "web_fetch"], "builtin"
    )
    assert groups["web_search"] == "websearch"
    assert {n: groups.get(n) for n in MEMORY} == dict.fromkeys(MEMORY, "memory")
    assert {n: groups.get(n) for n in SKILLS} == dict.fromkeys(SKILLS, "skills")
    assert groups["tool_search"] == groups["mcp_prepare"] == "mcp"
    assert groups["knowledge_search"] == "knowledge"

    # The list is exactly what a turn offers the model (knowledge_search: once a base exists).
    from tests.api.conftest import add_provider

    await ok(app, "knowledge.create", {"name": "Notes"})

    pid = await add_provider(app, fake_llm, "chat_completions")
    # The whole catalog up front: the lean request of a local provider is turned off (decision 309).
    fields = {"id": pid, "name": "Fake", "kind": "chat_completions", "base_url": fake_llm.openai_base_url}
    await ok(app, "providers.save", {**fields, "api_key": "********", "lean_tools": False})
    chat = await ok(app, "chats.create")
    fake_llm.script({"text": "ok"})
    turn = await ok(
        app,
        "chat.send",
        {"chat_id": chat["id"], "text": "hi", "model": {"provider_id": pid, "model": "fake-model"}},
    )
    assert (await rec.turn_end(turn["turn_id"])).type == "turn_done"
    offered = [t["function"]["name"] for t in fake_llm.requests[-1].body["tools"]]
    assert sorted(offered) == sorted(names)


async def test_policies_apply_to_capability_tools_too(make_app: AppMaker) -> None:
    app, _ = await make_app()
    before = {t["name"]: t for t in (await ok(app, "tools.list"))["tools"]}
    # Defaults: read-only tools run, the others follow the approval mode ("ask").
    assert before["search_memories"]["read_only"] is True and before["search_memories"]["policy"] == "always"
    assert before["remember_memory"]["read_only"] is False and before["remember_memory"]["policy"] == "ask"
    assert before["skill_load"]["policy"] == "always" and before["run_skill_script"]["policy"] == "ask"
    await ok(app, "settings.update", {"tool_policies": {"remember_memory": "never", "tool_search": "ask"}})
    after = {t["name"]: t for t in (await ok(app, "tools.list"))["tools"]}
    assert after["remember_memory"]["policy"] == "never" and after["tool_search"]["policy"] == "ask"
    assert after["remember_memory"]["description"] == before["remember_memory"]["description"] != ""


def test_the_static_skill_specs_say_what_the_tools_say() -> None:
    from app.skills.manage_tool import AgentSkillManageTool
    from app.skills.script_tool import RunSkillScriptTool
    from app.skills.tools import SkillLoadTool, SkillReadResourceTool, SkillSearchTool

    classes = [
        SkillSearchTool,
        SkillLoadTool,
        SkillReadResourceTool,
        RunSkillScriptTool,
        AgentSkillManageTool,
    ]
    assert [c.name for c in classes] == [s.name for s in tool_specs.ALL]
    assert {c.name for c in classes if c.read_only} == tool_specs.READ_ONLY


def test_listing_tools_imports_no_tool_code_and_starts_nothing(tmp_path: Path) -> None:
    code = """
import asyncio, json, sys
from app.api.bootstrap import build_app
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.testing.fake_keyring import MemoryKeyring

async def main():
    root = sys.argv[1]
    names = {"DATA": "data", "CONFIG": "config", "LOG": "logs", "CACHE": "cache"}
    paths = AppPaths.from_env({f"CASHCODE_{k}_DIR": f"{root}/{v}" for k, v in names.items()})
    app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=paths.data_dir)
    listed = await app.invoke("tools.list", {})
    heavy = ["app.tools.exec", "app.tools.fs", "app.websearch.backends", "app.skills.tools",
             "app.skills.catalog", "app.memory.handlers", "mcp"]
    print(json.dumps({"ok": listed["ok"], "count": len(listed["data"]["tools"]),
                      "loaded": [m for m in heavy if m in sys.modules]}))
    await app.aclose()

asyncio.run(main())
"""
    env = {**os.environ, "CASHCODE_DREAM": "off"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["ok"] and result["count"] >= 8 + 1 + len(MEMORY) + len(SKILLS) + 2
    assert result["loaded"] == []

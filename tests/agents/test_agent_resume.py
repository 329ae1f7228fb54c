"""A waiting turn of an agent's chat that goes on after a restart (issues 35 and 38) still runs
as that agent. A lazy chat (`cashcode ask`, the window's new chat) kept its agent in memory only,
so the checkpoint carries it; the resumed model request is read from the scripted LLM's log."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from app.api.bootstrap import build_app
from app.contracts.checkpoint import TurnCheckpoint
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send

PERSONA = "You are PERSONA-RESUMED, who writes files."


async def test_a_lazy_agent_chat_resumed_after_a_quit_runs_as_its_agent_and_is_stored_with_it(
    make_app: AppMaker, fake_llm: Any, workspace: Path, paths: AppPaths, secrets: SecretStore
) -> None:
    first = build_app(paths, {}, workspace=workspace, secrets=secrets)
    seen = Recorder()
    first.subscribe(seen)
    pid = await add_provider(first, fake_llm, "chat_completions")
    agent = await ok(first, "agents.add", {"spec": {"name": "Writer", "persona": PERSONA}})
    write = {"name": "write_file", "arguments": {"path": "w.txt", "content": "w"}}
    fake_llm.script({"tool_calls": [write]}, {"text": "Written as the writer."})
    chat = await ok(first, "chats.create", {"lazy": True, "agent_id": agent["id"]})
    turn = await send(first, chat["id"], "write it", pid)
    await seen.until(lambda: "approval_required" in seen.types(turn))
    with sqlite3.connect(paths.db_path) as db:
        [body] = [r[0] for r in db.execute("SELECT body FROM turn_checkpoints")]
    assert TurnCheckpoint.model_validate_json(body).agent_id == agent["id"]
    await first.aclose()  # a quit while it waits: the lazy chat and its agent lived in memory

    app, events = await make_app()
    await app.start_background()
    [item] = (await ok(app, "inbox.list"))["items"]
    await ok(app, "inbox.answer", {"id": item["id"], "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    resumed = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert resumed.startswith(PERSONA), resumed[:200]
    assert (workspace / "w.txt").read_text() == "w"
    stored = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert stored["chat"]["agent_id"] == agent["id"]

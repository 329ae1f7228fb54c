"""Self-evolution: off by default; two successful multi-tool turns with the same workflow lead
to ONE tool-less evolver call, a pending proposal, then approve (published into the agent
source) or reject. Failed turns are not evidence; secrets in requests are redacted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send

DRAFT = (
    "```markdown\n---\nname: notes-digest\ndescription: Read the notes and list the folder, then "
    "summarise. Use when asked for a notes digest.\n---\n# Notes digest\n\n1. read_file notes.txt\n"
    "2. list_dir .\n```"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


def _workflow() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]},
        {"text": "Here is the digest."},
    ]


async def _turn(app: Any, events: Recorder, chat_id: str, pid: str, text: str) -> None:
    turn = await send(app, chat_id, text, pid)
    assert (await events.turn_end(turn)).type == "turn_done"


async def _proposals_until(app: Any, predicate: Any, timeout_s: float = 10.0) -> list[dict[str, Any]]:
    """The evolver runs in the background; wait (bounded) for its result through the route."""
    async with asyncio.timeout(timeout_s):
        while True:
            found = (await ok(app, "skills.proposals.list"))["proposals"]
            if predicate(found):
                return list(found)
            await asyncio.sleep(0.02)


async def test_off_by_default_nothing_is_recorded(
    make_app: AppMaker, fake_llm: Any, home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("n")
    app, events = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    for _ in range(2):
        fake_llm.script(*_workflow())
        await _turn(app, events, chat["id"], pid, "notes digest please")
    listed = await ok(app, "skills.proposals.list")
    assert listed == {"enabled": False, "proposals": []}
    assert len(fake_llm.model_requests()) == 6  # no evolver call


async def test_a_recurring_workflow_becomes_a_proposal_that_can_be_approved(
    make_app: AppMaker, fake_llm: Any, home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("n")
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"skill_evolution": True})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    fake_llm.script(*_workflow())
    await _turn(app, events, chat["id"], pid, "notes digest please, key sk-abcdefghijklmnop1234")
    assert (await ok(app, "skills.proposals.list"))["proposals"] == []

    fake_llm.script(*_workflow(), {"text": DRAFT})
    await _turn(app, events, chat["id"], pid, f"digest of my notes in {home}/x")
    proposals = await _proposals_until(app, lambda ps: ps and ps[0]["status"] != "drafting")
    assert [(p["status"], p["name"]) for p in proposals] == [("pending", "notes-digest")]
    evolver = fake_llm.model_requests()[-1].body
    assert "tools" not in evolver or not evolver["tools"]  # restricted: no tools
    prompt = evolver["messages"][-1]["content"]
    assert "read_file → list_dir" in prompt
    assert "sk-abcdefghijklmnop1234" not in prompt and str(home) not in prompt and "***" in prompt

    approved = await ok(app, "skills.proposals.approve", {"id": proposals[0]["id"]})
    assert approved["status"] == "approved"
    item = (await ok(app, "skills.list", {"query": "notes digest"}))["items"][0]
    assert (item["name"], item["source"]) == ("notes-digest", "agent")
    assert (await err(app, "skills.proposals.approve", {"id": proposals[0]["id"]}))["code"] == "not_found"

    # The same workflow again adds evidence but never a second proposal for that fingerprint.
    fake_llm.script(*_workflow())
    await _turn(app, events, chat["id"], pid, "notes digest again")
    assert len((await ok(app, "skills.proposals.list"))["proposals"]) == 1


async def test_failed_calls_are_not_evidence_and_reject_marks_the_proposal(
    make_app: AppMaker, fake_llm: Any, home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("n")
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"skill_evolution": True})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    failing = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "missing.txt"}}]},
        {"tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]},
        {"text": "Could not."},
    ]
    for _ in range(2):
        fake_llm.script(*failing)
        await _turn(app, events, chat["id"], pid, "digest")
    assert (await ok(app, "skills.proposals.list"))["proposals"] == []

    fake_llm.script(*_workflow())
    await _turn(app, events, chat["id"], pid, "digest")
    fake_llm.script(*_workflow(), {"text": DRAFT})
    await _turn(app, events, chat["id"], pid, "digest")
    proposals = await _proposals_until(app, lambda ps: ps and ps[0]["status"] == "pending")
    rejected = await ok(app, "skills.proposals.reject", {"id": proposals[0]["id"]})
    assert rejected["status"] == "rejected"
    names = [i["name"] for i in (await ok(app, "skills.list"))["items"]]
    assert "notes-digest" not in names


async def test_closing_the_app_while_drafting_lets_the_workflow_be_proposed_again(
    make_app: AppMaker, fake_llm: Any, home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("n")
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"skill_evolution": True})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    fake_llm.script(*_workflow())
    await _turn(app, events, chat["id"], pid, "digest")
    fake_llm.script(*_workflow(), {"text": DRAFT, "chunk_size": 1, "delay_s": 0.05})  # a slow draft
    await _turn(app, events, chat["id"], pid, "digest")
    assert [p["status"] for p in await _proposals_until(app, bool)] == ["drafting"]
    capability = next(c for c in app.capabilities if c.name == "skills")
    await capability.aclose()  # what app.aclose() does at exit
    assert (await ok(app, "skills.proposals.list"))["proposals"] == []

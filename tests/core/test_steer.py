"""The loop's steer inbox (issue 35 item 4, decisions 425-426): where steer text lands."""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

from app.contracts.turn import TurnSpec
from app.core.steer import SteerInbox
from app.core.turn import run_turn
from tests.core.helpers import EchoTool, ScriptedProvider, calls, make_rig, text


def _spec(chat_id: str) -> TurnSpec:
    return TurnSpec(chat_id=chat_id, turn_id=str(uuid.uuid4()), user_text="hi", provider_id="p1", model="m1")


async def test_steers_put_before_the_first_call_wait_for_the_first_step_and_are_joined(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(calls(("echo", '{"text": "one"}')), text("done"))
    rig = make_rig(tmp_path, provider, EchoTool())
    chat = rig.chats.create()
    inbox = SteerInbox()
    assert inbox.put("use metric") and inbox.put("and be brief")
    deps = rig.deps()
    outcome = await run_turn(_spec(chat.id), replace(deps, loop=replace(deps.loop, steers=inbox)))
    assert outcome.status == "done"
    first, second = provider.requests
    assert [m.role for m in first.messages] == ["system", "user"]  # never two user messages in a row
    assert [(m.role, m.content) for m in second.messages[-2:]] == [
        ("tool", "one"),
        ("user", "use metric\n\nand be brief"),
    ]
    stored = rig.chats.history(chat.id)
    assert [(m.role, m.steer) for m in stored] == [
        ("user", False),
        ("assistant", False),
        ("tool", False),
        ("user", True),
        ("assistant", False),
    ]
    assert inbox.closed and not inbox.put("too late")  # the turn ended: refused, not lost


async def test_without_steers_the_turn_is_unchanged_and_the_inbox_closes_at_the_answer(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(text("Hello"))
    rig = make_rig(tmp_path, provider)
    chat = rig.chats.create()
    inbox = SteerInbox()
    deps = rig.deps()
    await run_turn(_spec(chat.id), replace(deps, loop=replace(deps.loop, steers=inbox)))
    assert len(provider.requests) == 1 and inbox.closed
    assert "turn_steered" not in rig.types()

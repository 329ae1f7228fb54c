"""The capability seam: a capability's tool, prompt text and after-turn hook reach a real turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.contracts.capability import Capability
from app.contracts.messages import Message, ToolSpec
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolResult
from app.contracts.turn import TurnSpec
from tests.api.conftest import AppMaker, add_provider, ok, send


class EchoTool(Tool):
    name = "echo_cap"
    description = "Echo the word back."
    parameters = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
    read_only = True

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(tool=self.name, args=args, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        return ToolResult(ok=True, content=f"echo:{call.args['word']}")


class ShadowTool(EchoTool):
    name = "read_file"  # a capability must not replace a built-in


class Box:
    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = {t.name: t for t in tools}

    def specs(self) -> Sequence[ToolSpec]:
        return [t.spec() for t in self._tools.values()]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)


class Probe(Capability):
    name = "probe"

    def __init__(self) -> None:
        self.stored: list[tuple[str, list[str]]] = []

    def toolset(self, spec: TurnSpec) -> Box:
        return Box([EchoTool(), ShadowTool()])

    def prompt_section(self, spec: TurnSpec) -> str:
        return f"PROBE-SECTION for {spec.chat_id}"

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        self.stored.append((spec.turn_id, [m.role for m in messages]))


class Broken(Capability):
    name = "broken"

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        raise RuntimeError("bookkeeping bug")


async def test_a_capability_adds_a_tool_prompt_text_and_sees_the_stored_turn(
    make_app: AppMaker, fake_llm: Any
) -> None:
    probe = Probe()
    app, events = await make_app(capabilities=[Broken(), probe])
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "echo_cap", "arguments": {"word": "hi"}}]},
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "use the tool", pid)
    end = await events.turn_end(turn)
    assert end.type == "turn_done"
    first, second = fake_llm.requests[-2:]
    tool_names = [t["function"]["name"] for t in first.body["tools"]]
    assert "echo_cap" in tool_names and tool_names.count("read_file") == 1
    assert f"PROBE-SECTION for {chat['id']}" in first.body["messages"][0]["content"]
    assert any(m.get("content") == "echo:hi" for m in second.body["messages"])
    assert probe.stored == [(turn, ["user", "assistant", "tool", "assistant"])]


async def test_mentions_are_stored_with_the_user_message_and_returned(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "ok"})
    chat = await ok(app, "chats.create")
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat["id"],
            "text": "inspect repo",
            "model": {"provider_id": pid, "model": "fake-model"},
            "mentions": [{"kind": "skill", "name": "code-review", "label": "Code Review"}],
        },
    )
    end = await events.turn_end(ref["turn_id"])
    assert end.type == "turn_done", end
    assert "code-review" not in fake_llm.requests[-1].body["messages"][-1]["content"]
    messages = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert messages[0]["mentions"] == [{"kind": "skill", "name": "code-review", "label": "Code Review"}]
    assert messages[1]["mentions"] == []

"""A tiny in-test Provider and tools for unit tests of the loop (the acceptance tests use the
fake HTTP server instead)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from app.api.plugins import open_database
from app.contracts.events import AppEvent, ApprovalRequired
from app.contracts.messages import Message, ToolCall, ToolSpec
from app.contracts.provider import (
    ModelInfo,
    ModelRequest,
    ProviderConfig,
    ProviderError,
    ProviderKind,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    UsageReport,
)
from app.contracts.tools import ApprovalInfo, Grant, GrantKey, PreparedCall, Tool, ToolContext, ToolResult
from app.core.approvals import Allow, ApprovalGate, Ask, PolicyDecision
from app.core.context import LoopDeps, TurnDeps
from app.store.chats import ChatRepository

Step = Sequence[StreamEvent] | ProviderError | asyncio.Event


def text(*parts: str) -> list[StreamEvent]:
    return [*(TextDelta(p) for p in parts), UsageReport(10, 5), StreamDone("stop")]


def calls(*items: tuple[str, str]) -> list[StreamEvent]:
    return [
        *(ToolCallReady(ToolCall(id=f"call_{i}", name=n, arguments=a)) for i, (n, a) in enumerate(items)),
        UsageReport(7, 3),
        StreamDone("tool_calls"),
    ]


class ScriptedProvider:
    """Plays one step per model call; an asyncio.Event step blocks until set (or cancelled)."""

    def __init__(self, *steps: Step) -> None:
        self.config = ProviderConfig(id="p1", kind=ProviderKind.CHAT_COMPLETIONS, base_url="http://x")
        self.steps = list(steps)
        self.requests: list[ModelRequest] = []
        self.closed_streams = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        step = self.steps.pop(0)
        try:
            if isinstance(step, ProviderError):
                raise step
            if isinstance(step, asyncio.Event):
                yield TextDelta("partial")
                await step.wait()
                return
            for event in step:
                yield event
        finally:
            self.closed_streams += 1

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo("m1")]

    async def aclose(self) -> None:
        return None


class EchoTool(Tool):
    name = "echo"
    description = "Echo text back"
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"text": {"type": "string"}}}
    read_only = True

    def __init__(self, barrier: asyncio.Barrier | None = None, output: str | None = None) -> None:
        self.barrier = barrier
        self.output = output

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(tool=self.name, args=args, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        if self.barrier is not None:
            await self.barrier.wait()  # only passes when all calls run at the same time
        return ToolResult(ok=True, content=self.output or str(call.args.get("text", "")))


class WriteTool(Tool):
    name = "write"
    description = "Pretend to write"
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"path": {"type": "string"}}}

    def __init__(self) -> None:
        self.runs: list[str] = []

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        key = GrantKey(kind="exec", key=("write", str(args["path"])))
        return PreparedCall(
            tool=self.name,
            args=args,
            approval=ApprovalInfo(title="Write", detail=f"write {args['path']}", grant_key=key),
        )

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        self.runs.append(str(call.args["path"]))
        return ToolResult(ok=True, content="written")


class Tools:
    def __init__(self, *tools: Tool) -> None:
        self._tools = {t.name: t for t in tools}

    def specs(self) -> Sequence[ToolSpec]:
        return [t.spec() for t in self._tools.values()]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)


class MemoryLedger:
    def __init__(self) -> None:
        self.keys: list[GrantKey] = []

    def has(self, key: GrantKey) -> bool:
        return key in self.keys

    def add(self, key: GrantKey, *, chat_id: str | None = None, enabled: bool = True) -> Grant:
        self.keys.append(key)
        return Grant(id=str(len(self.keys)), kind=key.kind, key=key.key, workspace="", created_at="")

    def find(self, key: GrantKey) -> Grant | None:
        return None

    def enable(self, grant_id: str) -> bool:
        return False

    def list(self) -> list[Grant]:
        return []

    def revoke(self, grant_id: str) -> bool:
        return False


def ask_unless_granted(ledger: MemoryLedger) -> Any:
    def policy(tool: Tool, prepared: PreparedCall) -> PolicyDecision:
        info = prepared.approval
        if info is None or (info.grant_key is not None and ledger.has(info.grant_key)):
            return Allow()
        return Ask(info)

    return policy


@dataclass
class Rig:
    provider: ScriptedProvider
    tools: Tools
    chats: ChatRepository
    events: list[AppEvent] = field(default_factory=list)
    usage: list[UsageReport] = field(default_factory=list)
    ledger: MemoryLedger = field(default_factory=MemoryLedger)
    max_iterations: int = 20
    max_tool_output_chars: int = 20_000
    gate: ApprovalGate | None = None

    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.gate = ApprovalGate(self.emit)

    def emit(self, event: AppEvent) -> None:
        self.events.append(event)
        self.changed.set()

    async def until(self, predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
        """Wait (bounded) until an emitted event makes `predicate` true."""
        async with asyncio.timeout(timeout_s):
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

    async def next_approval(self) -> ApprovalRequired:
        await self.until(lambda: any(isinstance(e, ApprovalRequired) for e in self.events))
        return [e for e in self.events if isinstance(e, ApprovalRequired)][-1]

    def deps(self) -> TurnDeps:
        assert self.gate is not None
        loop = LoopDeps(
            provider=self.provider,
            tools=self.tools,
            tool_ctx=ToolContext(workspace=Path("/tmp")),
            policy=ask_unless_granted(self.ledger),
            gate=self.gate,
            ledger=self.ledger,
            emit=self.emit,
            on_usage=self.usage.append,
            max_iterations=self.max_iterations,
            max_tool_output_chars=self.max_tool_output_chars,
        )
        return TurnDeps(loop=loop, store=self.chats, system_prompt="You are a test.")

    def types(self) -> list[str]:
        return [e.type for e in self.events]


def make_rig(tmp_path: Path, provider: ScriptedProvider, *tools: Tool, **kw: Any) -> Rig:
    chats = ChatRepository(open_database(tmp_path / "db.sqlite3"))
    return Rig(provider=provider, tools=Tools(*tools), chats=chats, **kw)


def tool_messages(request: ModelRequest) -> list[Message]:
    return [m for m in request.messages if m.role == "tool"]

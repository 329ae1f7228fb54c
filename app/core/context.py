"""The typed dependencies of one turn, passed down explicitly (no globals)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from app.contracts.checkpoint import CheckpointSink
from app.contracts.events import AppEvent
from app.contracts.messages import Message
from app.contracts.provider import Provider, UsageReport
from app.contracts.tools import TOOL_OUTPUT_BUDGET, ApprovalLedger, PreparedCall, Tool, ToolContext
from app.contracts.turn import StoreRunner, ToolBox, TurnSpec, TurnStore
from app.core.approvals import ApprovalGate, PolicyDecision
from app.core.steer import SteerInbox

Emit = Callable[[AppEvent], None]
T = TypeVar("T")

DEFAULT_MAX_ITERATIONS = 20
# The one tool output budget (app/contracts/tools.py); tools page within it.
DEFAULT_MAX_TOOL_OUTPUT_CHARS = TOOL_OUTPUT_BUDGET


class ApprovalPolicy(Protocol):
    """Decides whether a prepared call runs, asks, or is refused."""

    def __call__(self, tool: Tool, prepared: PreparedCall) -> PolicyDecision: ...


@dataclass(frozen=True)
class LoopDeps:
    provider: Provider
    tools: ToolBox
    tool_ctx: ToolContext
    policy: ApprovalPolicy
    gate: ApprovalGate
    ledger: ApprovalLedger
    emit: Emit
    on_usage: Callable[[UsageReport], None]
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    max_tool_output_chars: int = DEFAULT_MAX_TOOL_OUTPUT_CHARS
    stream: bool = True  # False: ask the provider for whole answers (`cashcode ask --no-stream`)
    # Steer text for this turn (chat.steer): drained after each step, given at the next call.
    steers: SteerInbox | None = None


class InlineStore:
    """A StoreRunner that runs the work right here (tests, and callers without a store lane)."""

    async def read(self, fn: Callable[[], T], *, wait_ms: int = 0) -> T:
        return fn()

    async def write(self, fn: Callable[[], T], *, wait_ms: int = 0) -> T:
        return fn()


@dataclass(frozen=True)
class TurnDeps:
    loop: LoopDeps
    store: TurnStore
    system_prompt: str
    # User-role blocks of data for this turn only (Capability.turn_context), sent after the
    # history and before the user's message; never stored.
    context_blocks: tuple[str, ...] = ()
    # Called after the turn is stored (e.g. automatic title). Runs on the core loop.
    on_stored: Callable[[TurnSpec, Sequence[Message]], None] | None = None
    # Where `store`'s reads and writes run (the app's store lane: off the event loop).
    runner: StoreRunner = field(default_factory=InlineStore)
    # Where the progress of a turn waiting on a question is checkpointed (issue 35 item 3).
    checkpoints: CheckpointSink | None = None

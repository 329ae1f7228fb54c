"""Chat routes: listing and editing chats, and starting/stopping/approving turns."""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from app.api import branch_models as bm
from app.api import models as m
from app.api.agent_tools import AgentToolBox
from app.api.lean_tools import LeanToolBox, ToolActivations
from app.api.resume import ResumeService
from app.attachments.inputs import AttachmentResolver
from app.attachments.provider import AttachmentProvider
from app.attachments.store import AttachmentStore
from app.contracts.agents import DEFAULT_AGENT_ID, DEFAULT_SCOPE, AgentDirectory, AgentScope
from app.contracts.capability import Capability, TurnOverrides, TurnToolBox
from app.contracts.checkpoint import TurnCheckpoint
from app.contracts.errors import ApiFailure, say
from app.contracts.events import SessionDeleted, SessionUpdated
from app.contracts.messages import AttachmentRef, Mention, Message
from app.contracts.provider import Provider, UsageReport
from app.contracts.tools import SandboxSpec, ToolContext
from app.contracts.turn import ToolBox, TurnSpec, TurnStore
from app.core.approvals import ApprovalGate
from app.core.context import ApprovalPolicy, Emit, LoopDeps, TurnDeps
from app.core.loop import Resumption
from app.core.prompt import build_system_prompt, load_persona
from app.core.steer import SteerInbox
from app.core.turn import TurnOutcome, run_turn
from app.core.turns import ChatBusy, TurnManager
from app.llm.gate import turn_scope
from app.llm.local import wants_lean_tools
from app.store.approvals import SqliteApprovalLedger
from app.store.chat_versions import OffPath
from app.store.chats import ChatActivity, ChatRecord, ChatRepository, StoredMessage
from app.store.errors import NotFound, StoreError
from app.store.ids import is_valid_id
from app.store.lane import StoreLane
from app.store.usage import UsageRepository

AUTO_TITLE_CHARS = 60
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z?")

_log = logging.getLogger(__name__)


def auto_title(user_text: str) -> str:
    """The whole first user message, whitespace collapsed, trimmed to ~60 characters.

    The whole message, not its first line: a message that opens with "Hi," or a blank-led
    paste would otherwise title every chat alike. Deliberately no extra model call: it is
    instant, free, works offline, and the user can rename the chat at any time.
    """
    line = " ".join(user_text.split()) or "New chat"
    return line if len(line) <= AUTO_TITLE_CHARS else line[: AUTO_TITLE_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class TurnEnvironment:
    """Per-turn settings the chat service asks for at send time (they may change between turns)."""

    workspace: Path
    max_iterations: int
    allow_private_network: bool
    protected_roots: tuple[Path, ...]
    tools: ToolBox
    policy: ApprovalPolicy
    stream: bool = True
    private_roots: tuple[Path, ...] = ()  # the app's own folders: tools ask before reading them
    env_allow: tuple[str, ...] = ()  # extra environment names commands see (Settings)
    sandbox: SandboxSpec | None = None  # the Sandboxed mode's confinement (None in other modes)


@dataclass(frozen=True)
class ChatDeps:
    chats: ChatRepository
    usage: UsageRepository
    ledger: SqliteApprovalLedger
    turns: TurnManager
    gate: ApprovalGate
    emit: Emit
    data_dir: Path
    environment: Callable[[TurnOverrides | None], TurnEnvironment]
    lane: StoreLane  # every database call of these routes and their turns runs there
    clock: Callable[[], datetime] = datetime.now
    capabilities: tuple[Capability, ...] = ()
    agents: AgentDirectory | None = None  # which agent each chat belongs to (issue 38)
    resume: ResumeService | None = None  # checkpoints of waiting turns (issue 35 item 3)
    # Told each turn's overrides (the Inbox names the task that asks); chat_id, overrides.
    on_overrides: Callable[[str, TurnOverrides | None], None] = lambda _chat, _o: None


class ChatService:
    """The store work of each route runs on the store lane (never on the event loop); what
    the loop owns (running turns, events) is read and emitted here, on the loop."""

    def __init__(self, deps: ChatDeps) -> None:
        self._d = deps
        self._activations = ToolActivations()  # the lean tool set's per-chat activations
        # Delete and the start of a turn are ordered per chat: each claims the chat before its
        # first await, so a turn never starts on a chat being deleted (nor is a chat deleted
        # under a turn that is starting); the loser gets `busy`, or `not_found` once it is gone.
        self._starting: set[str] = set()
        self._deleting: set[str] = set()

    @contextlib.contextmanager
    def _claim_start(self, chat_id: str) -> Iterator[None]:
        if chat_id in self._deleting:
            raise ApiFailure("busy", say("chat.busy_deleting"))
        if chat_id in self._starting or self._d.turns.is_running(chat_id):
            raise ChatBusy(say("chat.already_running", id=chat_id))
        self._starting.add(chat_id)
        try:
            yield
        finally:
            self._starting.discard(chat_id)

    # ---- chats -------------------------------------------------------------------------------

    async def _summary_of(self, record: ChatRecord) -> m.ChatSummary:
        def read() -> tuple[ChatActivity, str]:
            return self._d.chats.activity_of(record.id), self._agent_of(record.id)

        activity, agent = await self._d.lane.read(read)
        return self.summary(record, activity, agent_id=agent)

    def _agent_of(self, chat_id: str) -> str:
        if self._d.agents is None:
            return DEFAULT_AGENT_ID
        return self._d.agents.agents_of_chats([chat_id]).get(chat_id, DEFAULT_AGENT_ID)

    async def scope_of(self, chat_id: str) -> AgentScope:
        """What the chat's agent allows (the default agent without the agents capability)."""
        agents = self._d.agents
        if agents is None:
            return DEFAULT_SCOPE
        return await self._d.lane.read(lambda: agents.scope_of_chat(chat_id))

    def summary(
        self,
        record: ChatRecord,
        activity: ChatActivity | None,
        preview: str = "",
        *,
        agent_id: str = DEFAULT_AGENT_ID,
    ) -> m.ChatSummary:
        return m.ChatSummary(
            id=record.id,
            title=record.title,
            created_at=record.created_at,
            updated_at=record.updated_at,
            running=self._d.turns.is_running(record.id),
            message_count=activity.message_count if activity else 0,
            last_activity=(activity.last_message_at if activity else None) or record.created_at,
            preview=preview,
            agent_id=agent_id,
        )

    async def list(self, req: m.ChatListQuery) -> m.ChatList:
        """One page: the chats and the activity of exactly those chats (never the whole table)."""
        before = _decode_page_key(req.before) if req.before else None
        title = req.title.strip() if req.title else None

        chats = self._d.chats

        agents = self._d.agents
        Page = tuple[
            list[ChatRecord], tuple[str, str] | None, dict[str, ChatActivity], dict[str, str], dict[str, str]
        ]

        def read() -> Page:
            records, following = chats.list_page(req.limit, before=before, title_contains=title or None)
            ids = [c.id for c in records]
            owners = agents.agents_of_chats(ids) if agents is not None else {}
            return records, following, chats.activity(ids), chats.previews(ids), owners

        records, following, activity, previews, owners = await self._d.lane.read(read)
        none = ChatActivity(0, None)
        return m.ChatList(
            chats=[
                self.summary(
                    c,
                    activity.get(c.id, none),
                    previews.get(c.id, ""),
                    agent_id=owners.get(c.id, DEFAULT_AGENT_ID),
                )
                for c in records
            ],
            next_before=_encode_page_key(following) if following else None,
        )

    async def create(self, req: m.ChatCreate) -> m.ChatSummary:
        chats, agents, agent_id = self._d.chats, self._d.agents, req.agent_id or DEFAULT_AGENT_ID
        if agent_id != DEFAULT_AGENT_ID and (
            agents is None
            or not (
                agents.seen_agent(agent_id) or await self._d.lane.read(lambda: agents.has_agent(agent_id))
            )
        ):
            raise ApiFailure("not_found", say("agent.not_found", id=agent_id))
        if req.lazy:  # in memory only until its first turn is stored
            record = chats.reserve(req.title)
            if agents is not None:
                agents.assign(record.id, agent_id, stored=False)
            return self.summary(record, None, agent_id=agent_id)

        def create() -> ChatRecord:
            record = chats.create(req.title, chat_id=req.chat_id)
            if agents is not None:
                agents.assign(record.id, agent_id, stored=True)
            return record

        record = await self._d.lane.write(create)
        return self.summary(record, None, agent_id=agent_id)

    async def get(self, req: m.ChatGet) -> m.ChatDetail:
        chats, before, limit, through = self._d.chats, req.before_cursor, req.limit, req.through

        Page = tuple[list[StoredMessage], bool, dict[int, list[int]]]

        def read() -> tuple[ChatRecord, ChatActivity | None, Page, OffPath | None, str]:
            record = chats.get(req.chat_id)
            # `through` (a search hit on another version): that version, the stored one unchanged.
            off = chats.viewed(req.chat_id, through) if through is not None else None
            leaf = off.leaf if off is not None else None
            page = chats.page_view(req.chat_id, before_cursor=before, limit=limit, leaf=leaf)
            return record, chats.activity_of(record.id), page, off, self._agent_of(record.id)

        record, activity, (stored, has_more, siblings), off, agent = await self._d.lane.read(read)
        views = [_view(s, siblings.get(s.cursor)) for s in stored if s.message.role != "system"]
        viewing = (
            None
            if off is None
            else m.ViewedVersion(cursor=off.cursor, index=off.index, count=off.count, leaf=off.leaf)
        )
        return m.ChatDetail(
            chat=self.summary(record, activity, agent_id=agent),
            messages=views,
            has_more=has_more,
            viewing=viewing,
        )

    async def switch_branch(self, req: bm.BranchSwitch) -> m.ChatDetail:
        if self._d.turns.is_running(req.chat_id):
            raise ApiFailure("busy", say("chat.busy_switch"))
        await self._d.lane.write(lambda: self._d.chats.switch_branch(req.chat_id, req.cursor))
        return await self.get(m.ChatGet(chat_id=req.chat_id, limit=req.limit))

    async def rename(self, req: m.ChatRename) -> m.ChatSummary:
        record = await self._d.lane.write(lambda: self._d.chats.rename(req.chat_id, req.title))
        self._d.emit(SessionUpdated(chat_id=record.id, title=record.title, updated_at=record.updated_at))
        return await self._summary_of(record)

    async def delete(self, req: m.ChatRef) -> None:
        chat_id = req.chat_id
        if chat_id in self._starting or self._d.turns.is_running(chat_id):
            raise ApiFailure("busy", say("chat.busy_delete"))
        if chat_id in self._deleting:
            raise ApiFailure("busy", say("chat.busy_deleting"))
        self._deleting.add(chat_id)
        try:
            await self._d.lane.write(lambda: self._d.chats.delete(chat_id))
            if self._d.resume is not None:  # its waiting turns cannot go on any more
                await self._d.resume.forget_chat(chat_id)
        finally:
            self._deleting.discard(chat_id)
        self._d.emit(SessionDeleted(chat_id=chat_id))

    # ---- turns -------------------------------------------------------------------------------

    async def send(
        self,
        chat_id: str,
        text: str,
        provider_id: str,
        model: str,
        provider: Provider,
        *,
        mentions: tuple[Mention, ...] = (),
        attachments: tuple[AttachmentRef, ...] = (),
    ) -> m.TurnRef:
        """Start a turn (returns at once). `provider` is the live Provider for `provider_id`."""
        with self._claim_start(chat_id):
            parent = None
            if not self._d.chats.is_reserved(chat_id):
                # The turn attaches where the chat is now, even if another branch is chosen meanwhile.
                # NotFound / InvalidId before anything starts.
                parent = await self._d.lane.read(lambda: self._d.chats.leaf(chat_id))
            spec = TurnSpec(
                chat_id=chat_id,
                turn_id=str(uuid.uuid4()),
                user_text=text,
                provider_id=provider_id,
                model=model,
                mentions=mentions,
                attachments=attachments,
                parent_cursor=parent,
            )
            return await self._start(spec, provider)

    async def edit(
        self,
        chat_id: str,
        cursor: int,
        text: str,
        choice: m.ModelRef,
        provider: Provider,
        attachments: tuple[AttachmentRef, ...] | None,
    ) -> m.TurnRef:
        """A new user message next to message `cursor` (same parent): a new branch, answered."""
        with self._claim_start(chat_id):
            edited = await self._d.lane.read(lambda: self._d.chats.message(chat_id, cursor))
            if edited.message.role != "user":
                raise ApiFailure("invalid", say("chat.edit_not_user"))
            files = edited.message.attachments if attachments is None else attachments
            if not text.strip() and not files:
                raise ApiFailure("invalid", say("chat.empty_message"))
            spec = TurnSpec(
                chat_id=chat_id,
                turn_id=str(uuid.uuid4()),
                user_text=text,
                provider_id=choice.provider_id,
                model=choice.model,
                mentions=edited.message.mentions,
                attachments=files,
                parent_cursor=edited.parent_cursor,
            )
            return await self._start(spec, provider)

    async def regenerate(
        self, chat_id: str, cursor: int, choice: m.ModelRef, provider: Provider
    ) -> m.TurnRef:
        """A new answer to the user message that message `cursor` answers (or is)."""
        with self._claim_start(chat_id):
            user = await self._d.lane.read(lambda: self._d.chats.user_message_at_or_above(chat_id, cursor))
            spec = TurnSpec(
                chat_id=chat_id,
                turn_id=str(uuid.uuid4()),
                user_text=user.message.content,
                provider_id=choice.provider_id,
                model=choice.model,
                mentions=user.message.mentions,
                attachments=user.message.attachments,
                parent_cursor=user.cursor,
                regenerate=True,
            )
            return await self._start(spec, provider)

    async def retry(self, chat_id: str, provider_for: Callable[[str], Provider]) -> m.TurnRef:
        with self._claim_start(chat_id):
            await self._d.lane.read(lambda: self._d.chats.get(chat_id))
            old = self._d.turns.retry_spec(chat_id)
            spec = replace(old, turn_id=str(uuid.uuid4()))
            return await self._start(spec, provider_for(old.provider_id))

    async def resume(self, cp: TurnCheckpoint, resumption: Resumption, provider: Provider) -> m.TurnRef:
        """Continue a checkpointed turn after a restart (issue 35 item 3), as a running turn of its
        chat with its own turn id: its events reach an open chat, and it is stored once, whole."""
        with self._claim_start(cp.chat_id):
            chats = self._d.chats
            lazy = cp.reserved_title is not None
            if lazy and not await self._d.lane.read(lambda: chats.exists(cp.chat_id)):
                chats.reserve(cp.reserved_title or "", chat_id=cp.chat_id, title_auto=cp.reserved_title_auto)
                if self._d.agents is not None and cp.agent_id != DEFAULT_AGENT_ID:
                    # Its agent lived in memory too: given back (checked again when the turn starts).
                    self._d.agents.assign(cp.chat_id, cp.agent_id, stored=False)
            spec = TurnSpec(
                chat_id=cp.chat_id,
                turn_id=cp.turn_id,
                user_text=cp.user_text,
                provider_id=cp.provider_id,
                model=cp.model,
                mentions=cp.mentions,
                attachments=cp.attachments,
                parent_cursor=cp.parent_cursor,
                regenerate=cp.regenerate,
            )
            fixed = None
            if cp.approval_mode is not None or cp.workspace is not None or cp.task_id is not None:
                fixed = TurnOverrides(
                    approval_mode=cp.approval_mode, workspace=cp.workspace, asker=cp.asker, task_id=cp.task_id
                )
            return await self._start(spec, provider, resume=resumption, overrides=fixed)

    async def _start(
        self,
        spec: TurnSpec,
        provider: Provider,
        *,
        resume: Resumption | None = None,
        overrides: TurnOverrides | None = None,
    ) -> m.TurnRef:
        # The chat's agent, read once per turn (an edited agent applies from the next turn on;
        # a resumed turn reads it again, decision 474).
        spec = replace(spec, scope=await self.scope_of(spec.chat_id))
        steers = SteerInbox()  # filled by chat.steer (TurnManager.steer), drained by the loop
        deps = self._turn_deps(spec, provider, overrides)
        deps = replace(deps, loop=replace(deps.loop, steers=steers))
        if self._d.turns.is_running(spec.chat_id):  # before the title: a refused turn titles nothing
            raise ChatBusy(f"chat {spec.chat_id} is already running a turn")
        # Titled before the turn starts (its first events), with the store work off the loop.
        record = await self._title_new_chat(spec) if resume is None else None

        async def run(s: TurnSpec) -> TurnOutcome:
            # The whole turn (its tool steps too) keeps background calls to this provider out.
            async with turn_scope(provider):
                return await run_turn(s, deps, resume)

        self._d.turns.start(spec, run, steers)
        if record is not None:
            self._d.emit(SessionUpdated(chat_id=record.id, title=record.title, updated_at=record.updated_at))
        return m.TurnRef(chat_id=spec.chat_id, turn_id=spec.turn_id)

    async def _title_new_chat(self, spec: TurnSpec) -> ChatRecord | None:
        """Title an untitled new chat from its first message as soon as the turn starts: the
        title is known now (the list shows it while the answer streams) and a first turn that
        fails still leaves a titled chat. Only a chat with no messages yet: an old or imported
        untitled chat, or an edit/regeneration, keeps its (empty) title."""
        if spec.regenerate:
            return None
        chats = self._d.chats

        def title() -> ChatRecord | None:
            record = chats.get(spec.chat_id) if not chats.is_reserved(spec.chat_id) else None
            if record is not None and (
                not record.title_auto or record.title or chats.activity_of(spec.chat_id).message_count
            ):
                return None
            text = spec.user_text if spec.user_text.strip() else " ".join(a.name for a in spec.attachments)
            return chats.rename(spec.chat_id, auto_title(text), auto=True)

        try:
            return await self._d.lane.write(title)
        except (sqlite3.Error, StoreError, NotFound, ValueError):
            _log.warning("could not title chat %s", spec.chat_id, exc_info=True)
            return None

    def _turn_deps(self, spec: TurnSpec, provider: Provider, fixed: TurnOverrides | None = None) -> TurnDeps:
        caps, scope = self._d.capabilities, spec.scope
        overrides = fixed or next((o for o in (c.turn_overrides(spec) for c in caps) if o is not None), None)
        self._d.on_overrides(spec.chat_id, overrides)
        # The checkpoint keeps the task's own overrides; the agent's are read again on resume.
        env = self._d.environment(_with_agent(overrides, scope))
        toolsets = [t for t in (c.toolset(spec) for c in caps) if t is not None]
        files = AttachmentResolver(AttachmentStore(self._d.data_dir / "attachments"))
        tools: ToolBox = TurnToolBox([env.tools, *toolsets]) if toolsets else env.tools
        lean = wants_lean_tools(provider.config)
        if lean or not scope.tools.everything:
            catalog = frozenset(
                {s.name for s in env.tools.specs()} | {t.spec.name for c in caps for t in c.listed_tools()}
            )
            if not scope.tools.everything:  # the agent's tools: cut here, once, for every part
                tools = AgentToolBox(tools, scope.tools, catalog)
            if lean:  # a lean request: core tools up front, the rest found
                offered = frozenset(n for n in catalog if scope.tools.allows(n))
                tools = LeanToolBox(tools, offered, self._activations.of(spec.chat_id))
        loop = LoopDeps(
            provider=AttachmentProvider(provider, files),
            tools=tools,
            tool_ctx=ToolContext(
                workspace=env.workspace,
                chat_id=spec.chat_id,
                turn_id=spec.turn_id,
                protected_roots=env.protected_roots,
                allow_private_network=env.allow_private_network,
                private_roots=env.private_roots,
                env_allow=env.env_allow,
                sandbox=env.sandbox,
            ),
            policy=env.policy,
            gate=self._d.gate,
            ledger=self._d.ledger,
            emit=self._d.emit,
            on_usage=lambda u: self._record_usage(spec, u),
            max_iterations=env.max_iterations,
            stream=env.stream,
        )
        persona = scope.persona if scope.persona is not None else load_persona(self._d.data_dir)
        prompt = build_system_prompt(persona, env.workspace, self._d.clock())
        sections = [s for s in (c.prompt_section(spec) for c in caps) if s]
        if sections:
            prompt = "\n\n".join([prompt, *sections])
        blocks = tuple(b for b in (c.turn_context(spec) for c in caps) if b)
        store: TurnStore = self._d.chats
        for cap in caps:
            store = cap.wrap_store(store)
        sink = None
        if self._d.resume is not None:
            lazy = self._d.chats.reserved(spec.chat_id)
            sink = self._d.resume.sink(spec, overrides, (lazy.title, lazy.title_auto) if lazy else None)
        return TurnDeps(
            loop=loop,
            store=store,
            system_prompt=prompt,
            context_blocks=blocks,
            on_stored=self._after_store,
            runner=self._d.lane,
            checkpoints=sink,
        )

    def _record_usage(self, spec: TurnSpec, usage: UsageReport) -> None:
        # Bookkeeping must neither fail nor hold up the user's turn: written on the store lane,
        # a write error is logged there.
        def record() -> None:
            self._d.usage.record(
                spec.chat_id,
                spec.turn_id,
                spec.provider_id,
                spec.model,
                usage.input_tokens,
                usage.output_tokens,
            )

        self._d.lane.write_later(record, f"the usage of turn {spec.turn_id}")

    def _after_store(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        """The turn is stored; now a session_updated event (the title was set at the start).
        Failing here must not turn a stored turn into a failed one, so errors are logged."""
        for cap in self._d.capabilities:
            try:
                cap.after_turn(spec, messages)
            except Exception:  # a capability's bookkeeping must never fail a stored turn
                _log.warning("%s: after-turn hook failed", cap.name, exc_info=True)
        try:
            record = self._d.chats.get(spec.chat_id)
        except (sqlite3.Error, StoreError, NotFound):
            _log.warning("could not update chat %s after its turn", spec.chat_id, exc_info=True)
            return
        self._d.emit(SessionUpdated(chat_id=record.id, title=record.title, updated_at=record.updated_at))


def _with_agent(overrides: TurnOverrides | None, scope: AgentScope) -> TurnOverrides | None:
    """A capability's overrides (a scheduled task's) win; what they leave open comes from the
    chat's agent; what the agent leaves open, from the user's settings."""
    if scope.approval_mode is None and scope.workspace is None:
        return overrides
    if overrides is None:
        return TurnOverrides(approval_mode=scope.approval_mode, workspace=scope.workspace)
    return replace(  # the task's asker and id stay
        overrides,
        approval_mode=overrides.approval_mode or scope.approval_mode,
        workspace=overrides.workspace or scope.workspace,
    )


def _view(stored: StoredMessage, siblings: list[int] | None = None) -> m.MessageView:
    msg = stored.message
    family = siblings or [stored.cursor]
    role = msg.role
    assert role != "system"
    return m.MessageView(
        cursor=stored.cursor,
        turn_id=stored.turn_id,
        role=role,
        content=msg.content,
        tool_calls=[m.ToolCallView(id=c.id, name=c.name, arguments=c.arguments) for c in msg.tool_calls],
        tool_call_id=msg.tool_call_id,
        name=msg.name,
        created_at=stored.created_at,
        mentions=list(msg.mentions),
        attachments=list(msg.attachments),
        stopped=msg.stopped,
        steer=msg.steer,
        tool_outcome=msg.tool_outcome,
        siblings=family,
        sibling_index=family.index(stored.cursor),
    )


PAGE_KEY_SEPARATOR = "|"  # updated_at and chat ids never contain it


def _encode_page_key(key: tuple[str, str]) -> str:
    return f"{key[0]}{PAGE_KEY_SEPARATOR}{key[1]}"


def _decode_page_key(token: str) -> tuple[str, str]:
    updated_at, sep, chat_id = token.partition(PAGE_KEY_SEPARATOR)
    if not sep or not is_valid_id(chat_id) or not _TIMESTAMP.fullmatch(updated_at):
        raise ApiFailure("invalid", say("chat.bad_cursor"))
    return updated_at, chat_id

"""CashCodeApp: the application facade every surface calls (docs/architecture.md).

One async method per route, plus `invoke(route, payload)` which validates the payload with the
route's request model and returns the envelope. All methods run on the core asyncio loop.

What adapters use (desktop bridge, HTTP server, CLI):
- `app = build_app(paths, env, ...)` (app/api/bootstrap.py), on or before the core loop;
- `await app.invoke(route, payload) -> {"ok": True, "data": …} | {"ok": False, "error": …}`;
- `unsubscribe = app.subscribe(callback)`: every AppEvent, called on the core loop (be quick);
- `app.register_route("desktop.pick_folder", handler)`: adapter-only routes;
- `await app.wait_idle(chat_id)`; `await app.aclose()` (cancels turns, closes providers and DB).

Its length (a little over 600 lines) is the route table's: one thin method per route, each
delegating to a service (chats.py, providers.py, inbox.py, …), where the logic lives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from app.api import branch_models as bm
from app.api import models as m
from app.api.capabilities import CapabilitySet
from app.api.chats import ChatDeps, ChatService, TurnEnvironment
from app.api.errors import error_envelope, to_failure
from app.api.inbox import InboxDeps, InboxService, Label
from app.api.inbox_models import InboxAnswer, InboxList, InboxQuery
from app.api.outside_turn import OutsideTurnRunner
from app.api.providers import ProviderService
from app.api.resume import ResumeService
from app.api.route_types import ROUTE_TYPES
from app.api.settings_service import SettingsService
from app.api.skills_watch import SkillsWatch
from app.api.tooling import ToolCatalog
from app.api.turn_queue import TurnQueue
from app.contracts.agents import AgentDirectory
from app.contracts.capability import Capability, CapabilityPlugin, TurnOverrides
from app.contracts.errors import ApiFailure, said, say
from app.contracts.events import AppEvent, DatabaseStatus
from app.contracts.messages import AttachmentRef
from app.contracts.provider import ProviderConfig
from app.contracts.replies import SharedReply
from app.core.approvals import AlwaysNotOffered, ApprovalGate
from app.core.bus import EventBus, Subscriber
from app.core.turns import TurnManager
from app.host.host import Host
from app.resume.store import CheckpointStore
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.store.approvals import SqliteApprovalLedger
from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.inbox import InboxStore
from app.store.lane import StoreLane
from app.store.usage import UsageRepository

Handler = Callable[[Any], Awaitable[BaseModel]]
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AppContext:
    """Everything the facade is built from; assembled by `bootstrap.build_app` only."""

    paths: AppPaths
    env: Mapping[str, str]
    db: Database
    chats: ChatRepository
    usage: UsageRepository
    ledger: SqliteApprovalLedger
    settings: SettingsService
    secrets: SecretStore
    providers: ProviderService
    tools: ToolCatalog
    bus: EventBus
    notices: tuple[str, ...] = ()  # shown once per start through app.info
    # The capabilities' plugins (app/api/plugins.py), built by the app with the host's
    # services, then `extra_capabilities` (tests plug fakes in here).
    plugins: tuple[CapabilityPlugin[Host], ...] = ()
    extra_capabilities: tuple[Capability, ...] = ()
    provider_override: ProviderConfig | None = None
    workspace_override: Path | None = None


class CashCodeApp:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._namespaces: list[bool] = []  # app/sandbox/probe.py private_namespaces, once
        self.bus = ctx.bus
        self.gate = ApprovalGate(ctx.bus.publish)
        self.turns = TurnManager(ctx.bus.publish)
        # The core routes' and turns' database work runs here, off the event loop.
        self.lane = StoreLane(ctx.db, on_busy=lambda busy: ctx.bus.publish(DatabaseStatus(busy=busy)))
        self.capabilities = CapabilitySet(ctx.plugins, self._host, ctx.extra_capabilities)
        # Waiting turns survive a restart (issue 35 item 3); only with the checkpoint tables.
        checkpoints = CheckpointStore(ctx.db) if ctx.db.has_table("turn_checkpoints") else None
        self.resume = ResumeService(checkpoints, self.lane) if checkpoints is not None else None
        # Every question a run asks, for every surface (issue 35); it records what the gate announces.
        self.inbox = InboxService(
            InboxDeps(
                store=InboxStore(ctx.db),
                lane=self.lane,
                gate=self.gate,
                publish=ctx.bus.publish,
                chat_title=self._chat_title,
                cancel_turn=self._cancel_turn,
                invoke=self.invoke,
                resume=self.resume,
            )
        )
        ctx.bus.subscribe(self.inbox.on_event)
        ctx.bus.subscribe(self._on_task_removed)
        self._chat = ChatService(
            ChatDeps(
                chats=ctx.chats,
                usage=ctx.usage,
                ledger=ctx.ledger,
                turns=self.turns,
                gate=self.gate,
                emit=ctx.bus.publish,
                data_dir=ctx.paths.data_dir,
                environment=self._turn_environment,
                lane=self.lane,
                capabilities=tuple(self.capabilities),
                agents=next((c for c in self.capabilities if isinstance(c, AgentDirectory)), None),
                resume=self.resume,
                on_overrides=self._label_turn,
            )
        )
        self.queue = TurnQueue(self.turns, self.chat_send, ctx.bus.publish)
        if self.resume is not None:
            self.resume.bind(
                lambda cp, r: self._chat.resume(cp, r, self.ctx.providers.get(cp.provider_id)),
                self.turns.is_running,
                self.ctx.providers.get,
            )
        self.skills_watch = SkillsWatch(
            data_dir=ctx.paths.data_dir,
            home=Path(ctx.env.get("HOME") or Path.home()),
            workspace=lambda: ctx.settings.workspace(ctx.settings.load()),
            publish=ctx.bus.publish,
            force_polling=ctx.env.get("WATCHFILES_FORCE_POLLING", "") not in ("", "0", "false"),
        )
        from app.api.routes import bind_routes  # routes refer back to this class

        self._routes: dict[str, Handler] = bind_routes(self)
        self._all_routes = False  # capability routes are bound on first use (`ask` never needs them)
        self._background_start: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()

    def _host(self, capability: Callable[[str], Capability]) -> Host:
        """What every capability is built from (app/host/host.py)."""
        ctx = self.ctx
        return Host(
            paths=ctx.paths,
            env=ctx.env,
            db=ctx.db,
            chats=ctx.chats,
            ledger=ctx.ledger,
            secrets=ctx.secrets,
            settings=ctx.settings.store,
            publish=ctx.bus.publish,
            subscribe=ctx.bus.subscribe,
            provider=ctx.providers.background,  # capabilities' calls are background work
            provider_kind=ctx.providers.kind_of,
            provider_gate=ctx.providers.gate,
            provider_override=ctx.provider_override,
            workspace_override=ctx.workspace_override,
            workspace=lambda: ctx.settings.workspace(),
            app=self,
            capability=capability,
            run_tool=OutsideTurnRunner(lambda: self._turn_environment(), self.gate, ctx.ledger),
        )

    # ---- adapter surface ---------------------------------------------------------------------

    def route_names(self) -> list[str]:
        return list(self.routes())

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        return self.bus.subscribe(callback)

    def register_route(self, name: str, handler: Handler) -> None:
        """Adapters serve adapter-only routes (e.g. `desktop.pick_folder`) through this."""
        if name not in ROUTE_TYPES:
            raise KeyError(f"unknown route {name!r}: add it to app/api/route_types.py first")
        self._bind_all_routes()
        self._routes[name] = handler

    def routes(self) -> Mapping[str, Handler]:
        self._bind_all_routes()
        return dict(self._routes)

    def _bind_all_routes(self) -> None:
        """Bind each capability's handlers and the other adapter-only routes, once. Deferred
        from start-up because it imports every capability's route code and models."""
        if self._all_routes:
            return
        self._all_routes = True
        from app.api.routes import bind_adapter_only

        bind_adapter_only(self, self._routes)
        for cap in self.capabilities:
            for name, handler in cap.routes().items():
                if name not in ROUTE_TYPES:
                    raise KeyError(f"{cap.name}: route {name!r} is not declared in app/api/route_types.py")
                self._routes[name] = handler

    async def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate → handle → envelope. Never raises; never leaks a traceback or a secret."""
        self.bus.bind(asyncio.get_running_loop())  # the core loop (events of store threads go there)
        types = ROUTE_TYPES.get(route)
        if route not in self._routes:
            self._bind_all_routes()
        handler = self._routes.get(route)
        if types is None or handler is None:
            return error_envelope(ApiFailure("invalid", say("route.unknown", route=route)))
        if payload is not None and not isinstance(payload, Mapping):
            return error_envelope(ApiFailure("invalid", say("route.payload_not_object")))
        try:
            request = types[0].model_validate(dict(payload or {}))
            response = await handler(request)
        except ValidationError as exc:
            return error_envelope(to_failure(exc, route))
        except Exception as exc:  # the API boundary: every failure becomes an envelope
            return error_envelope(to_failure(exc, route))
        data = response.json_form() if isinstance(response, SharedReply) else response.model_dump(mode="json")
        return {"ok": True, "data": data}

    async def wait_idle(self, chat_id: str) -> None:
        """Wait until the chat has no running turn (the CLI uses this)."""
        await self.turns.wait(chat_id)

    async def start_background(self) -> None:
        """Start what long-lived surfaces need (desktop, serve): Skill hot reload, and each
        capability's background work."""
        self.skills_watch.start()
        await self._relist_waiting_turns()
        for cap in self.capabilities:
            await cap.start()

    def _on_task_removed(self, event: AppEvent) -> None:
        """A removed task's waiting turns can never go on: their checkpoints and items go."""
        removed = getattr(event, "removed", None) if event.type == "tasks_changed" else None
        if self.resume is None or not isinstance(removed, str):
            return
        resume, inbox = self.resume, self.inbox

        async def forget() -> None:
            try:
                inbox.forget(await resume.forget_task(removed))
            except Exception:
                _log.warning("could not forget the saved turns of task %s", removed, exc_info=True)

        task = asyncio.get_running_loop().create_task(forget())
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _relist_waiting_turns(self) -> None:
        """The questions of turns checkpointed before a quit, crash or kill are Inbox items again
        (issue 35 item 3); answering one continues its turn here."""
        if self.resume is None:
            return
        from app.api.resume_inbox import relist

        try:
            await relist(self.resume, self.inbox, db=self.ctx.db, lane=self.lane, chat_title=self._chat_title)
        except Exception:  # the app works without them; they are listed again at the next start
            _log.exception("could not list the questions of saved turns again")

    def start_background_soon(self, delay_s: float) -> None:
        """`start_background` as a task of the running loop, after `delay_s`: in the desktop the
        page's first requests already wait for the app, and the watchers' and schedulers' start
        (mostly imports, ~0.3–0.7 s on two cores) would otherwise come before their answers."""

        async def later() -> None:
            await asyncio.sleep(delay_s)
            try:
                await self.start_background()
            except Exception:  # the window works without hot reload; say why in the log
                _log.exception("background work could not start")

        self._background_start = asyncio.get_running_loop().create_task(later())

    async def aclose(self) -> None:
        if self._background_start is not None and not self._background_start.done():
            self._background_start.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._background_start
        await self.skills_watch.stop()
        for cap in reversed(self.capabilities):
            try:
                await cap.aclose()
            except Exception:  # closing must go on for the others (and the database)
                _log.warning("%s: close failed", cap.name, exc_info=True)
        await self.queue.aclose()
        if self.resume is not None:
            self.resume.closing = True  # a turn waiting on a question goes on after the restart
        await self.turns.aclose()
        await self.inbox.aclose()
        await self.ctx.providers.aclose()
        await self.lane.aclose()
        self.ctx.db.close()

    # ---- app -----------------------------------------------------------------------------------

    async def app_info(self, req: m.Empty) -> m.AppInfo:
        settings = self.ctx.settings.load()
        # Off the loop: the first status waits for keyring's backend detection (SecretStore.warm),
        # and the page's other first requests are answered meanwhile.
        state = await asyncio.to_thread(self.ctx.secrets.status)
        return m.AppInfo(
            version=_version(),
            platform=sys.platform,
            first_run=not settings.providers,
            keyring=m.KeyringStatus(available=state.available, backend=state.backend, message=state.message),
            data_dir=str(self.ctx.paths.data_dir),
            workspace=str(self.ctx.settings.workspace(settings)),
            notices=list(self.ctx.notices),
            database_busy=self.lane.busy,
        )

    async def app_detect_ollama(self, req: m.Empty) -> m.OllamaProbe:
        from app.api.ollama_probe import probe_ollama  # onboarding only

        return await probe_ollama(self.ctx.env)

    # ---- chats ---------------------------------------------------------------------------------

    async def chats_list(self, req: m.ChatListQuery) -> m.ChatList:
        return await self._chat.list(req)

    async def chats_create(self, req: m.ChatCreate) -> m.ChatSummary:
        return await self._chat.create(req)

    async def chats_get(self, req: m.ChatGet) -> m.ChatDetail:
        return await self._chat.get(req)

    async def chats_rename(self, req: m.ChatRename) -> m.ChatSummary:
        return await self._chat.rename(req)

    async def chats_delete(self, req: m.ChatRef) -> m.Ok:
        await self._chat.delete(req)
        return m.Ok()

    async def chat_send(self, req: m.ChatSend) -> m.TurnRef:
        if not req.text.strip() and not req.attachments:
            raise ApiFailure("invalid", say("chat.empty_message"))
        if req.attachments:
            self._check_files(req.attachments)
        requested = req.model
        if requested is None:  # the chat's agent's own model, when it has one
            scope = await self._chat.scope_of(req.chat_id)
            if scope.provider_id is not None and scope.model is not None:
                requested = m.ModelRef(provider_id=scope.provider_id, model=scope.model)
        choice = await self._model_choice(requested)
        if req.attachments:
            await self._check_vision(choice, req.attachments)
        provider = self.ctx.providers.get(choice.provider_id)
        ref = await self._chat.send(
            req.chat_id,
            req.text,
            choice.provider_id,
            choice.model,
            provider,
            mentions=tuple(req.mentions),
            attachments=tuple(req.attachments),
        )
        if req.model is not None and not self.ctx.providers.is_override(choice.provider_id):
            self.ctx.settings.remember_model(choice.provider_id, choice.model)
        return ref

    async def _model_choice(self, requested: m.ModelRef | None) -> m.ModelRef:
        choice = requested or self.ctx.settings.view().last_model or await self._choose_first_model()
        if choice is None:
            raise ApiFailure("invalid", say("chat.no_model"))
        return choice

    async def chat_edit(self, req: bm.ChatEdit) -> m.TurnRef:
        choice = await self._model_choice(req.model)
        if req.attachments:
            self._check_files(req.attachments)
            await self._check_vision(choice, req.attachments)
        files = None if req.attachments is None else tuple(req.attachments)
        provider = self.ctx.providers.get(choice.provider_id)
        return await self._chat.edit(req.chat_id, req.cursor, req.text, choice, provider, files)

    async def chat_regenerate(self, req: bm.ChatRegenerate) -> m.TurnRef:
        choice = await self._model_choice(req.model)
        provider = self.ctx.providers.get(choice.provider_id)
        return await self._chat.regenerate(req.chat_id, req.cursor, choice, provider)

    async def chats_switch_branch(self, req: bm.BranchSwitch) -> m.ChatDetail:
        return await self._chat.switch_branch(req)

    async def chat_cancel(self, req: m.ChatRef) -> m.Ok:
        from app.store.ids import validate_chat_id  # like every route that names a chat

        chat_id = validate_chat_id(req.chat_id)
        self.queue.drop(chat_id)  # Stop also keeps the queued follow-ups from being sent
        await self.turns.cancel(chat_id)
        return m.Ok()

    async def chat_steer(self, req: m.ChatSteer) -> m.TurnRef:
        from app.store.ids import validate_chat_id

        if not req.text.strip():
            raise ApiFailure("invalid", say("chat.empty_message"))
        chat_id = validate_chat_id(req.chat_id)
        return m.TurnRef(chat_id=chat_id, turn_id=self.turns.steer(chat_id, req.text.strip()))

    async def chat_queue(self, req: m.ChatSend) -> m.QueuedTurn:
        from app.store.ids import validate_chat_id

        if not req.text.strip() and not req.attachments:
            raise ApiFailure("invalid", say("chat.empty_message"))
        validate_chat_id(req.chat_id)
        return await self.queue.add(req)

    async def chat_retry(self, req: m.ChatRef) -> m.TurnRef:
        return await self._chat.retry(req.chat_id, self.ctx.providers.get)

    async def chat_approve(self, req: m.ApprovalAnswer) -> m.Ok:
        """Answered through the Inbox's item: the first answer of any surface wins (issue 35)."""
        try:
            if req.unattended and req.decision != "deny":
                raise ApiFailure("invalid", say("approval.unattended_deny"), {"decision": "deny expected"})
            await self.inbox.answer_approval(
                req.approval_id, "unattended" if req.unattended else req.decision, req.via
            )
        except AlwaysNotOffered as exc:
            raise ApiFailure("invalid", said(exc), {"decision": "always is not offered"}) from exc
        return m.Ok()

    # ---- the Inbox (issue 35) -----------------------------------------------------------------

    async def inbox_list(self, req: InboxQuery) -> InboxList:
        return InboxList(items=await self.inbox.list(req.include_answered))

    async def inbox_answer(self, req: InboxAnswer) -> m.Ok:
        try:
            await self.inbox.answer(req)
        except AlwaysNotOffered as exc:
            raise ApiFailure("invalid", said(exc), {"decision": "always is not offered"}) from exc
        return m.Ok()

    def _label_turn(self, chat_id: str, overrides: TurnOverrides | None) -> None:
        """A task's turn: its items say which task asks."""
        if overrides is not None and overrides.task_id is not None:
            self.inbox.label(chat_id, Label("task", overrides.asker or "", overrides.task_id))

    async def _cancel_turn(self, chat_id: str) -> None:
        await self.turns.cancel(chat_id)

    def _chat_title(self, chat_id: str) -> str | None:
        try:
            record = self.ctx.chats.get(chat_id)
        except Exception:  # gone or never stored (a lazy `ask` chat): the item names its origin
            return None
        return record.title or None

    # ---- providers & models -------------------------------------------------------------------

    async def providers_list(self, req: m.Empty) -> m.ProviderList:
        return self.ctx.providers.list_views()

    async def providers_save(self, req: m.ProviderInput) -> m.ProviderView:
        view = self.ctx.providers.save(req)
        if self.ctx.settings.view().last_model is None:
            # The first provider: choose one of its models now, so the first message just works.
            await self._choose_first_model([view.id])
        return view

    async def providers_delete(self, req: m.ProviderRef) -> m.Ok:
        self.ctx.providers.delete(req.provider_id)
        return m.Ok()

    async def providers_test(self, req: m.ProviderRef) -> m.ConnectionTest:
        return await self.ctx.providers.test(req.provider_id)

    async def models_list(self, req: m.ModelsQuery) -> m.ModelList:
        return await self.ctx.providers.models(req.provider_id)

    # ---- settings, approvals, tools -----------------------------------------------------------

    async def settings_get(self, req: m.Empty) -> m.SettingsView:
        return self.ctx.settings.view()

    async def settings_update(self, req: m.SettingsPatch) -> m.SettingsView:
        return self.ctx.settings.update(req)

    async def approvals_list(self, req: m.Empty) -> m.GrantList:
        grants = [
            m.GrantView(
                id=g.id,
                kind=g.kind,
                key=list(g.key),
                workspace=g.workspace,
                created_at=g.created_at,
                chat_id=g.chat_id,
                enabled=g.enabled,
            )
            for g in await self.lane.read(self.ctx.ledger.list)
        ]
        return m.GrantList(grants=grants)

    async def approvals_enable(self, req: m.GrantRef) -> m.Ok:
        if not await self.lane.write(lambda: self.ctx.ledger.enable(req.grant_id)):
            raise ApiFailure("not_found", say("grant.not_found", id=req.grant_id))
        return m.Ok()

    async def approvals_revoke(self, req: m.GrantRef) -> m.Ok:
        if not await self.lane.write(lambda: self.ctx.ledger.revoke(req.grant_id)):
            raise ApiFailure("not_found", say("grant.not_found", id=req.grant_id))
        return m.Ok()

    async def tools_list(self, req: m.Empty) -> m.ToolList:
        policies = self.ctx.settings.load().tool_policies
        return m.ToolList(tools=self.ctx.tools.infos(policies, self.capabilities))

    async def unsupported(self, req: BaseModel) -> BaseModel:
        raise ApiFailure("unsupported", say("desktop_only"))

    # ---- internals -------------------------------------------------------------------------------

    def _check_files(self, refs: list[AttachmentRef]) -> None:
        from app.attachments.send_checks import check_files
        from app.attachments.store import AttachmentStore

        check_files(AttachmentStore(self.ctx.paths.data_dir / "attachments"), refs)

    async def _check_vision(self, choice: m.ModelRef, refs: list[AttachmentRef]) -> None:
        from app.attachments.send_checks import check_vision

        async def discovered() -> bool | None:
            listed = await self.ctx.providers.models(choice.provider_id)
            return next((e.supports_vision for e in listed.models if e.model == choice.model), None)

        marked = self.ctx.settings.load().vision_models.get(choice.provider_id, [])
        await check_vision(refs, choice.model, marked, discovered)

    async def _choose_first_model(self, provider_ids: list[str] | None = None) -> m.ModelRef | None:
        """Pick and remember a model when none is chosen yet (first run)."""
        ids = provider_ids if provider_ids is not None else self.ctx.providers.provider_ids()
        choice = await self.ctx.providers.first_model(ids)
        if choice is not None and not self.ctx.providers.is_override(choice.provider_id):
            self.ctx.settings.remember_model(choice.provider_id, choice.model)
        return choice

    def _private_namespaces(self, env: Mapping[str, str]) -> bool:
        """Whether confined programs get a private network and /tmp: probed once (a child
        process; the switch is in the app's environment, which does not change)."""
        if not self._namespaces:
            from app.sandbox.probe import private_namespaces

            self._namespaces.append(private_namespaces(env)[0])
        return self._namespaces[0]

    def _turn_environment(self, overrides: TurnOverrides | None = None) -> TurnEnvironment:
        settings = self.ctx.settings.load()
        workspace = (overrides.workspace if overrides else None) or self.ctx.settings.workspace(settings)
        mode = (overrides.approval_mode if overrides else None) or self.ctx.settings.approval_mode(settings)
        sandbox = None
        if mode == "sandboxed":
            from app.api.sandbox_setup import sandbox_spec  # ctypes and the probe: only in this mode

            sandbox = sandbox_spec(self.ctx.paths, settings, self.ctx.env, self._private_namespaces)
        return TurnEnvironment(
            workspace=workspace,
            max_iterations=self.ctx.settings.max_iterations(settings),
            allow_private_network=settings.allow_private_network,
            protected_roots=(self.ctx.paths.skills_dir, *self._skill_roots(workspace)),
            tools=self.ctx.tools,
            stream=self.ctx.settings.stream,
            private_roots=private_app_roots(self.ctx.paths),
            env_allow=tuple(settings.exec_env),
            sandbox=sandbox,
            policy=self.ctx.tools.policy(
                mode=mode,
                policies=settings.tool_policies,
                ledger=self.ctx.ledger,
                sandbox=sandbox,
            ),
        )

    def _skill_roots(self, workspace: Path) -> tuple[Path, ...]:
        from app.skills.sources import protected_skill_roots

        home = Path(self.ctx.env.get("HOME") or Path.home())
        return protected_skill_roots(self.ctx.paths.data_dir, home, workspace)


def private_app_roots(paths: AppPaths) -> tuple[Path, ...]:
    """The app's own folders (database, settings, Skills, logs, cache): off limits to tools
    without asking when the workspace contains them."""
    return (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir)


def _version() -> str:
    # One source (pyproject.toml): the installed metadata, else the bundled or source
    # pyproject.toml, which is all a frozen app has. Imported only when the UI asks.
    from app.support.version import app_version

    return app_version()

"""The agents capability: the `agents.*` routes, which agent each chat belongs to, and the
per-turn scope (`AgentDirectory`, app/contracts/agents.py) the composition layer asks for.

A chat reserved in memory (`cashcode ask`, a lazy new chat) has its agent kept here until its
first turn is stored (`after_turn`); a chat with no row belongs to the default agent."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.contracts.agents import DEFAULT_AGENT_ID, DEFAULT_SCOPE, AgentScope
from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure, say
from app.contracts.messages import Message
from app.contracts.turn import TurnSpec

if TYPE_CHECKING:
    from app.agents import api_models as am
    from app.agents.model import AgentRecord
    from app.agents.packages import AgentPackages
    from app.agents.store import AgentStore
    from app.host.host import Host

_log = logging.getLogger(__name__)


class AgentsCapability(Capability):
    name = "agents"

    def __init__(self, host: Host) -> None:
        self._host = host
        self._pending: dict[str, str] = {}  # reserved chat -> agent, until its first turn is stored
        # The picker's list by (agents generation, last used): served again until either moves.
        self._listed: tuple[tuple[int, str], am.AgentList] | None = None

    @functools.cached_property
    def store(self) -> AgentStore:
        from app.agents.store import AgentStore  # the spec models load on first use, not in `ask`

        store = AgentStore(self._host.db)
        if (self._host.paths.data_dir / "agents" / "staging").is_dir():
            # A package install a kill interrupted is finished (or dropped) before anyone reads.
            from app.agents.packages import AgentPackages

            AgentPackages(self._host, store).recover()
        return store

    # ---- AgentDirectory (blocking: the composition layer calls these on its store lane) -------

    def seen_agent(self, agent_id: str) -> bool:
        return self.store.seen(agent_id)

    def has_agent(self, agent_id: str) -> bool:
        from app.store.errors import NotFound

        try:
            self.store.get(agent_id)
        except NotFound:
            return False
        return True

    def scope_of_chat(self, chat_id: str) -> AgentScope:
        # One short read per turn (the agent and its version); the scope itself is built once
        # per version of the agent (AgentStore.scope), so an edit applies from the next turn on.
        store = self.store
        agent_id = self._pending.get(chat_id)
        if agent_id is None:
            agent_id, version = store.chat_agent(chat_id)
        else:
            version = None if agent_id == DEFAULT_AGENT_ID else store.version_of(agent_id)
        if agent_id == DEFAULT_AGENT_ID:
            return DEFAULT_SCOPE
        from app.store.errors import NotFound

        try:
            return store.scope(agent_id, version)
        except NotFound:
            # Removed while a chat kept in memory waited for its first turn: refused, never
            # run with the default agent's wider rights (a stored chat's row goes with the agent).
            raise ApiFailure("not_found", say("agent.not_found", id=agent_id)) from None

    def agents_of_chats(self, chat_ids: Iterable[str]) -> dict[str, str]:
        ids = list(chat_ids)
        found = self.store.agents_of(ids)
        found.update({c: self._pending[c] for c in ids if c in self._pending})
        return found

    def own_memory_chats(self, chat_ids: Iterable[str]) -> set[str]:
        from app.store.errors import NotFound

        owners = self.agents_of_chats(chat_ids)
        own: set[str] = set()
        for agent_id in set(owners.values()) - {DEFAULT_AGENT_ID}:
            try:
                if self.store.get(agent_id).spec.memory == "own":
                    own.add(agent_id)
            except NotFound:  # removed: its chats belong to the default agent again
                continue
        return {chat for chat, agent in owners.items() if agent in own}

    def assign(self, chat_id: str, agent_id: str, *, stored: bool) -> None:
        """The chat belongs to `agent_id` (checked by the caller: `has_agent`)."""
        if stored:
            self.store.assign(chat_id, agent_id)
        else:
            self._pending[chat_id] = agent_id

    # ---- hooks ---------------------------------------------------------------------------------

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        # A reserved chat is stored now: so is the agent its first turn ran with.
        if self._pending.pop(spec.chat_id, None) is not None:
            self.store.assign_if_unset(spec.chat_id, spec.scope.agent_id)

    async def start(self) -> None:
        # Finish or drop an agent package install a kill interrupted (app/agents/package_install.py).
        if (self._host.paths.data_dir / "agents" / "staging").is_dir():
            await asyncio.to_thread(self.packages.recover)

    # ---- routes --------------------------------------------------------------------------------

    def routes(self) -> Mapping[str, Handler]:
        return {
            "agents.list": self._list,
            "agents.get": self._get,
            "agents.add": self._add,
            "agents.edit": self._edit,
            "agents.remove": self._remove,
            "agents.duplicate": self._duplicate,
            "agents.set_chat_agent": self._set_chat_agent,
            "agents.export": self._export,
            "agents.import_preview": self._import_preview,
            "agents.import": self._import,
        }

    async def _list(self, req: Any) -> am.AgentList:
        from app.agents import api_models as am

        store = self.store

        def read() -> am.AgentList:
            # The generation is read before the list: a change in between makes the next call
            # read again, never keeps an older list under a newer generation.
            key = (store.generation(), store.last_used())
            listed = self._listed
            if listed is not None and listed[0] == key:
                return listed[1]
            reply = am.AgentList(agents=[_view(r) for r in store.list()], last_used=key[1])
            self._listed = (key, reply)
            return reply

        return await asyncio.to_thread(read)

    async def _get(self, req: am.AgentRef) -> am.AgentView:
        return _view(await asyncio.to_thread(self.store.find, req.agent_id))

    async def _add(self, req: am.AgentInput) -> am.AgentView:
        return _view(await asyncio.to_thread(self.store.add, req.spec))

    async def _edit(self, req: am.AgentEdit) -> am.AgentView:
        return _view(await asyncio.to_thread(self.store.edit, req.agent_id, req.spec))

    async def _remove(self, req: am.AgentRef) -> Any:
        from app.contracts.replies import Ok

        await asyncio.to_thread(self.store.remove, req.agent_id)
        return Ok()

    async def _duplicate(self, req: am.AgentDuplicate) -> am.AgentView:
        from app.core.prompt import load_persona

        store = self.store

        def copy() -> AgentRecord:
            source = store.get(req.agent_id)
            spec = source.spec
            if source.builtin:  # the copy gets today's SOUL.md as its own persona
                spec = spec.model_copy(update={"persona": load_persona(self._host.paths.data_dir)})
            name = req.name or store.free_name(f"{spec.name} copy"[:64])
            return store.add(spec.model_copy(update={"name": name}))

        return _view(await asyncio.to_thread(copy))

    async def _set_chat_agent(self, req: am.ChatAgent) -> Any:
        from app.contracts.replies import Ok

        chats = self._host.chats
        chat_id, agent_id = req.chat_id, req.agent_id

        def set_agent() -> None:
            reserved = chats.is_reserved(chat_id)
            if not reserved and chats.activity_of(chats.get(chat_id).id).message_count:
                raise ApiFailure("invalid", say("agent.chat_started"))
            self.store.get(agent_id)  # not_found for an unknown agent
            self.assign(chat_id, agent_id, stored=not reserved)

        await asyncio.to_thread(set_agent)
        return Ok()

    # ---- packages (.cashagent) -----------------------------------------------------------------

    @functools.cached_property
    def packages(self) -> AgentPackages:
        from app.agents.packages import AgentPackages

        return AgentPackages(self._host, self.store)

    async def _export(self, req: am.PackageExport) -> am.PackageExported:
        return await asyncio.to_thread(self.packages.export, req)

    async def _import_preview(self, req: am.PackagePath) -> am.PackagePreview:
        return await asyncio.to_thread(self.packages.preview, req)

    async def _import(self, req: am.PackageImport) -> am.PackageInstalled:
        return await asyncio.to_thread(self.packages.install, req)


def _view(record: AgentRecord) -> am.AgentView:
    from app.agents import api_models as am

    return am.AgentView(
        id=record.id,
        spec=record.spec,
        builtin=record.builtin,
        created_at=record.created_at,
        updated_at=record.updated_at,
    )

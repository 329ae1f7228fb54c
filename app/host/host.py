"""`Host`: the services a capability is built from, passed in by the composition root
(app/api/bootstrap.py). A capability takes what it needs from here and builds nothing shared
itself (no second settings service, chat repository or settings store).

`app` is the application's own route surface (`invoke`, `subscribe`, `route_names`): a
capability that drives turns or other capabilities (import, evals) calls routes through it, at
run time, never while the app is being built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from app.contracts.capability import Capability, SettingsSection
from app.contracts.events import AppEvent
from app.contracts.provider import Provider, ProviderConfig
from app.contracts.tools import Tool, ToolResult
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.settings.user_settings import SettingsError, SettingsStore
from app.store.approvals import SqliteApprovalLedger
from app.store.chats import ChatRepository
from app.store.db import Database

if TYPE_CHECKING:
    from app.llm.gate import ProviderGate

Publish = Callable[[AppEvent], None]
Subscribe = Callable[[Callable[[AppEvent], None]], Callable[[], None]]


class ToolRunner(Protocol):
    """Runs one tool call outside a model's turn (an MCP App's own call) under the same
    approval rules as a turn's call (app/api/outside_turn.py); the card of `call_id` in
    `turn_id` is where its approval is asked."""

    async def __call__(
        self, tool: Tool, args: Mapping[str, Any], *, chat_id: str, turn_id: str, call_id: str
    ) -> ToolResult: ...


class AppPort(Protocol):
    """The app as capabilities see it (CashCodeApp satisfies it)."""

    async def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]: ...

    def subscribe(self, callback: Callable[[AppEvent], None]) -> Callable[[], None]: ...

    def route_names(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class Host:
    paths: AppPaths
    env: Mapping[str, str]
    db: Database
    chats: ChatRepository
    ledger: SqliteApprovalLedger
    secrets: SecretStore
    settings: SettingsStore
    publish: Publish
    subscribe: Subscribe
    # A configured provider by id (keys from the keyring), for background work: on a local
    # provider its calls wait for the user's turns (app/llm/gate.py).
    provider: Callable[[str], Provider]
    provider_kind: Callable[[str], str | None]
    # The same provider's slots, for background calls that are not model calls (embeddings).
    provider_gate: Callable[[str], ProviderGate]
    provider_override: ProviderConfig | None  # the CLI's provider for this process, if any
    workspace_override: Path | None  # the CLI's --workspace (a real path), if any
    workspace: Callable[[], Path]  # the effective workspace now (settings may change it)
    app: AppPort
    capability: Callable[[str], Capability]  # another capability by name (declare it in `after`)
    run_tool: ToolRunner  # a call outside a turn, approved as a turn's would be


M = TypeVar("M", bound=BaseModel)


class SectionStore(Generic[M]):
    """Typed access to one capability's settings section (`sections.<key>` in settings.json).
    A missing section is the model's defaults; an invalid one raises SettingsError (the file
    is left unchanged, as for every other setting)."""

    def __init__(self, store: SettingsStore, key: str, model: type[M]) -> None:
        self._store = store
        self._key = key
        self._model = model

    @classmethod
    def of(cls, store: SettingsStore, section: SettingsSection) -> SectionStore[BaseModel]:
        return SectionStore(store, section.key, section.model())

    def load(self) -> M:
        raw = self._store.load().sections.get(self._key, {})
        try:
            return self._model.model_validate(raw)
        except ValidationError as exc:
            problems = exc.error_count()
            raise SettingsError(f"settings section {self._key!r} is invalid ({problems} problem(s))") from exc

    def save(self, value: M) -> M:
        checked = self._model.model_validate(value.model_dump())
        data = checked.model_dump(mode="json")
        self._store.update(lambda s: s.model_copy(update={"sections": {**s.sections, self._key: data}}))
        return checked

    def update(self, fn: Callable[[M], M]) -> M:
        return self.save(fn(self.load()))

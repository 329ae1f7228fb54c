"""The composition root: the ONE place that builds the application's objects.

Adapters call `build_app(...)` once per process (on the core loop's thread) and
`await app.aclose()` at the end.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.api.app import AppContext, CashCodeApp
from app.api.plugins import PLUGINS, open_database
from app.api.providers import ProviderFactory, ProviderService, default_factory
from app.api.settings_service import SettingsService
from app.api.tooling import ToolCatalog
from app.contracts.capability import Capability, CapabilityPlugin
from app.contracts.provider import ProviderConfig
from app.contracts.tools import Tool
from app.core.bus import EventBus
from app.host.host import Host
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.settings.user_settings import ApprovalMode, SettingsStore
from app.store.approvals import SqliteApprovalLedger
from app.store.chats import ChatRepository
from app.store.usage import UsageRepository

if TYPE_CHECKING:
    from app.tools.registry import ToolRegistry

_log = logging.getLogger(__name__)


def build_app(
    paths: AppPaths,
    env: Mapping[str, str],
    *,
    secrets: SecretStore | None = None,
    provider_factory: ProviderFactory | None = None,
    provider_override: ProviderConfig | None = None,
    workspace: Path | None = None,
    max_iterations: int | None = None,
    stream: bool = True,
    approval_mode: ApprovalMode | None = None,
    tools: list[Tool] | None = None,
    capabilities: Sequence[Capability] = (),
    plugins: Sequence[CapabilityPlugin[Host]] = PLUGINS,
) -> CashCodeApp:
    """Open the database and settings and wire every service.

    - `secrets`: defaults to the OS keychain (`SecretStore()`; keyring is imported lazily).
    - `provider_factory`: `Provider` constructor (default: `app.llm.factory.create_provider`).
    - `provider_override`: a provider used for its id in this process only (the CLI's config).
    - `workspace`, `max_iterations`, `stream`, `approval_mode`: process-local overrides (the
      CLI's flags).
    - `tools`: the tool set (default: the built-in tools).
    - `capabilities`: extra capabilities after the built-in ones (tests plug fakes in here).
    - `plugins`: the capabilities' plugins (default: app/api/plugins.py's one list).
    """
    paths.ensure()
    env = dict(env)
    secret_store = secrets if secrets is not None else SecretStore()
    settings_store = SettingsStore(paths.settings_path)
    notices = recover_settings(settings_store)
    migrate_legacy(env, settings_store, secret_store)
    providers = ProviderService(settings_store, secret_store, provider_factory or default_factory)
    if provider_override is not None:
        providers.add_override(provider_override)
    db = open_database(paths.db_path, plugins)
    bus = EventBus()
    settings = SettingsService(
        settings_store,
        data_dir=paths.data_dir,
        env=env,
        workspace_override=Path(os.path.realpath(workspace)) if workspace is not None else None,
        max_iterations_override=max_iterations,
        stream=stream,
        approval_mode_override=approval_mode,
    )
    ctx = AppContext(
        paths=paths,
        env=env,
        db=db,
        chats=ChatRepository(db),
        usage=UsageRepository(db),
        ledger=SqliteApprovalLedger(db),
        settings=settings,
        secrets=secret_store,
        providers=providers,
        tools=ToolCatalog(_registry(tools, settings_store, secret_store)),
        bus=bus,
        notices=tuple(notices),
        plugins=tuple(plugins),
        extra_capabilities=tuple(capabilities),
        provider_override=provider_override,
        workspace_override=settings.workspace_override,
    )
    return CashCodeApp(ctx)


def recover_settings(store: SettingsStore) -> list[str]:
    """A damaged settings file must not leave every screen broken: keep it (renamed, nothing is
    lost) and start with defaults, telling the user where the old file is."""
    from app.settings.user_settings import SettingsError

    try:
        store.load()
    except SettingsError as exc:
        moved = store.quarantine()
        _log.warning("settings file set aside: %s", exc)
        where = f" It was kept as {moved}." if moved is not None else ""
        return [f"Your settings could not be read ({exc}).{where} CashCode started with default settings."]
    return []


LEGACY_VARS = ("DEEPSEEK_API_KEY", "DEEPSEEK_API_BASE")


def migrate_legacy(env: Mapping[str, str], store: SettingsStore, secrets: SecretStore) -> None:
    """SPEC S2.5: DEEPSEEK_API_KEY/DEEPSEEK_API_BASE become a provider profile, once.

    Without a keychain nothing is written and it is tried again at the next start."""
    if not any(env.get(name) for name in LEGACY_VARS):
        return  # the common case costs no import
    from app.settings.cli_config import migrate_legacy_env
    from app.settings.secrets import SecretStoreError
    from app.settings.user_settings import SettingsError

    try:
        migrate_legacy_env(env, store, secrets)
    except (SecretStoreError, SettingsError) as exc:
        _log.warning("legacy DeepSeek settings not migrated yet: %s", exc)


def _registry(tools: list[Tool] | None, settings: SettingsStore, secrets: SecretStore) -> ToolRegistry:
    """The built-in tools and `web_search` (static specs; their code loads on first call)."""
    from app.tools.registry import ToolEntry, ToolRegistry, builtin_entries
    from app.websearch.tool_spec import WEB_SEARCH

    if tools is not None:
        return ToolRegistry(tools)

    def search_tool() -> Tool:
        from app.websearch.capability import WebSearchSettings
        from app.websearch.tool import WebSearchTool

        return WebSearchTool(WebSearchSettings(settings, secrets).config)

    return ToolRegistry([*builtin_entries(), ToolEntry(WEB_SEARCH, False, search_tool, group="websearch")])

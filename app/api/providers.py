"""Provider profiles (settings) + their keys (keychain) → live `Provider` objects (SPEC S2).

Providers are created on first use and cached per profile; saving or deleting a profile closes
the cached one. A process-local override (the CLI's effective config) can stand in for a
profile without being saved.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

from app.api import models as m
from app.contracts.errors import ApiFailure, say
from app.contracts.events import ErrorInfo
from app.contracts.provider import (
    ModelInfo,
    ModelLimits,
    Provider,
    ProviderConfig,
    ProviderError,
    ProviderKind,
)
from app.llm.gate import GatedProvider, ProviderGate
from app.llm.local import is_local, parallel_limit
from app.settings.secrets import SecretStore, provider_key_name
from app.settings.user_settings import ModelSettings, ProviderProfile, SettingsStore, UserSettings

ProviderFactory = Callable[[ProviderConfig], Provider]

# "Test connection" gives up after this long: a server that accepts and never answers must not
# leave the button spinning for the SDK's minute-long timeout (issue 25 item 5).
TEST_TIMEOUT_S = 5.0


DEFAULT_TIMEOUT_S = 60.0  # a provider's timeout when its profile sets none


def profile_config(profile: ProviderProfile, *, api_key: str | None, **overrides: object) -> ProviderConfig:
    """What a saved profile says about talking to its server: kind, URL, name, timeouts and model
    limits (`overrides`: fields the caller decides, such as the CLI's base URL and kind)."""
    fields: dict[str, object] = {
        "id": profile.id,
        "kind": ProviderKind(profile.kind),
        "base_url": profile.base_url,
        "api_key": api_key,
        "name": profile.name,
        "timeout_s": profile.timeout_s or DEFAULT_TIMEOUT_S,
        "first_token_timeout_s": profile.first_token_timeout_s,
        "parallel_requests": profile.parallel_requests,
        "lean_tools": profile.lean_tools,
        "model_limits": {
            e.model: ModelLimits(
                temperature=e.temperature,
                max_output_tokens=e.max_output_tokens,
                context_length=e.context_length,
            )
            for e in profile.model_settings
        },
        **overrides,
    }
    return ProviderConfig(**fields)  # type: ignore[arg-type]


def default_factory(config: ProviderConfig) -> Provider:
    # Lazy: importing the SDK costs ~0.4 s; only pay it when a provider is actually used.
    from app.llm.factory import create_provider

    provider: Provider = create_provider(config)
    return provider


class ProviderService:
    def __init__(
        self,
        settings: SettingsStore,
        secrets: SecretStore,
        factory: ProviderFactory,
        test_timeout_s: float = TEST_TIMEOUT_S,
    ) -> None:
        self._test_timeout_s = test_timeout_s
        self._settings = settings
        self._secrets = secrets
        self._factory = factory
        # Each live provider behind its gate (app/llm/gate.py): turns get it as it is (their
        # calls are foreground), background work gets `background(id)`.
        self._cache: dict[str, GatedProvider] = {}
        self._overrides: dict[str, ProviderConfig] = {}
        # Replaced providers are closed only at shutdown: a running turn may still stream on one.
        self._retired: list[Provider] = []

    # ---- live providers ----------------------------------------------------------------------

    def add_override(self, config: ProviderConfig) -> None:
        """Use `config` for its id in this process only (never saved; the CLI uses this)."""
        self._overrides[config.id] = config
        self._drop(config.id)

    def is_override(self, provider_id: str) -> bool:
        return provider_id in self._overrides

    def get(self, provider_id: str) -> Provider:
        """The provider for a user's turn (its calls come first at its gate)."""
        return self._gated(provider_id)

    def background(self, provider_id: str) -> Provider:
        """The same provider for background work (consolidation, Dream, the skill evolver): on
        a provider with a limit it waits for the turns and is cancelled and retried for them."""
        return self._gated(provider_id).as_background()

    def gate(self, provider_id: str) -> ProviderGate:
        """The provider's slots, for background work that is not a model call (knowledge
        embeddings) but must yield to its turns the same way."""
        return self._gated(provider_id).gate

    def _gated(self, provider_id: str) -> GatedProvider:
        cached = self._cache.get(provider_id)
        if cached is None:
            config = self._config(provider_id)
            cached = GatedProvider(self._factory(config), ProviderGate(parallel_limit(config)))
            self._cache[provider_id] = cached
        return cached

    def _config(self, provider_id: str) -> ProviderConfig:
        override = self._overrides.get(provider_id)
        if override is not None:
            return override
        profile = self._settings.load().provider(provider_id)
        if profile is None:
            raise ApiFailure("not_found", say("provider.not_configured", id=provider_id))
        # Ollama needs no key, but one behind an authenticating proxy may have one stored.
        return profile_config(profile, api_key=self._secrets.get(provider_key_name(profile.id)))

    def limits(self, provider_id: str, model: str) -> ModelLimits:
        """The user's settings for `model` of that provider (context length for consolidation's
        budget, temperature, max output tokens); empty when the provider is unknown."""
        try:
            return self._config(provider_id).limits_for(model)
        except ApiFailure:
            return ModelLimits()

    def kind_of(self, provider_id: str) -> str | None:
        """The provider's API mode (traces record it); None when it is not configured."""
        override = self._overrides.get(provider_id)
        if override is not None:
            return override.kind.value
        profile = self._settings.load().provider(provider_id)
        return str(profile.kind) if profile is not None else None

    def _drop(self, provider_id: str) -> None:
        """Forget the cached provider (its profile or key changed)."""
        provider = self._cache.pop(provider_id, None)
        if provider is not None:
            self._retired.append(provider)

    async def aclose(self) -> None:
        providers = [*self._cache.values(), *self._retired]
        self._cache, self._retired = {}, []
        for provider in providers:
            await provider.aclose()

    # ---- routes ------------------------------------------------------------------------------

    def view(self, profile: ProviderProfile) -> m.ProviderView:
        has_key = self._secrets.get(provider_key_name(profile.id)) is not None
        return m.ProviderView(
            id=profile.id,
            name=profile.name,
            kind=profile.kind,
            base_url=profile.base_url,
            api_key=m.MASK if has_key else "",
            has_key=has_key,
            timeout_s=profile.timeout_s,
            first_token_timeout_s=profile.first_token_timeout_s,
            default_model=profile.default_model,
            model_settings=[m.ModelSettingsEntry(**e.model_dump()) for e in profile.model_settings],
            parallel_requests=profile.parallel_requests,
            lean_tools=profile.lean_tools,
            local=is_local(
                ProviderConfig(id=profile.id, kind=ProviderKind(profile.kind), base_url=profile.base_url)
            ),
        )

    def list_views(self) -> m.ProviderList:
        return m.ProviderList(providers=[self.view(p) for p in self._settings.load().providers])

    def save(self, req: m.ProviderInput) -> m.ProviderView:
        provider_id = req.id or str(uuid.uuid4())
        current = self._settings.load()
        if req.id is not None and current.provider(req.id) is None:
            raise ApiFailure("not_found", say("provider.not_found", id=req.id))
        previous = current.provider(provider_id) if req.id is not None else None
        # A field the request leaves out keeps its saved value (a form that does not show it
        # must not reset it); null sets the default.
        sent = req.model_fields_set
        profile = ProviderProfile(
            id=provider_id,
            name=req.name,
            kind=req.kind,
            base_url=req.base_url,
            parallel_requests=(
                req.parallel_requests
                if "parallel_requests" in sent or previous is None
                else previous.parallel_requests
            ),
            lean_tools=req.lean_tools if "lean_tools" in sent or previous is None else previous.lean_tools,
            timeout_s=req.timeout_s,
            first_token_timeout_s=req.first_token_timeout_s,
            default_model=req.default_model,
            model_settings=[ModelSettings(**e.model_dump()) for e in req.model_settings],
        )
        # "" keeps the key like the mask: a client that saves a profile without sending its key
        # (or an emptied field) must not silently remove the only key; `clear_key` removes it.
        keep = req.api_key in ("", m.MASK)
        if not keep and not req.api_key.strip():
            raise ApiFailure("invalid", say("provider.blank_key"), {"api_key": "blank"})
        if req.clear_key and not keep:
            raise ApiFailure("invalid", say("provider.key_and_clear"), {"api_key": "clear_key"})
        name = provider_key_name(provider_id)
        if previous is not None and keep and not req.clear_key and self._secrets.get(name) is not None:
            _refuse_key_retarget(previous.base_url, profile.base_url)
        # The key first: if the keychain refuses it, the profile is not saved either.
        if req.clear_key:
            self._secrets.delete(name)
        elif not keep:
            self._secrets.set(name, req.api_key)

        def apply(s: UserSettings) -> UserSettings:
            others = [p for p in s.providers if p.id != provider_id]
            position = next((i for i, p in enumerate(s.providers) if p.id == provider_id), len(others))
            others.insert(position, profile)
            return s.model_copy(update={"providers": others})

        self._settings.update(apply)
        self._drop(provider_id)
        return self.view(profile)

    def delete(self, provider_id: str) -> None:
        if self._settings.load().provider(provider_id) is None:
            raise ApiFailure("not_found", say("provider.not_found", id=provider_id))

        def apply(s: UserSettings) -> UserSettings:
            last = s.last_model if s.last_model and s.last_model.provider_id != provider_id else None
            return s.model_copy(
                update={"providers": [p for p in s.providers if p.id != provider_id], "last_model": last}
            )

        self._settings.update(apply)
        self._secrets.delete(provider_key_name(provider_id))
        self._drop(provider_id)

    async def test(self, provider_id: str) -> m.ConnectionTest:
        provider = self.get(provider_id)
        limit = self._test_timeout_s
        try:
            models = await asyncio.wait_for(provider.list_models(), limit)
        except ProviderError as exc:
            return m.ConnectionTest(ok=False, message=exc.message, code=exc.code, params=dict(exc.details))
        except TimeoutError:
            url = self._config(provider_id).base_url
            return m.ConnectionTest(
                ok=False,
                message=(
                    f"No answer from {url} within {limit:g} s. "
                    "Check the address and that the server is running."
                ),
                code="timeout",
                timeout_s=limit,
            )
        return m.ConnectionTest(
            ok=True, message=f"Connected: {len(models)} models available.", model_count=len(models)
        )

    async def models(self, provider_id: str | None) -> m.ModelList:
        settings = self._settings.load()
        # Process-local overrides (the CLI's provider) count too, and win over a saved profile.
        named = {p.id: p.name for p in settings.providers}
        named.update({pid: cfg.name or pid for pid, cfg in self._overrides.items()})
        targets = [(pid, name) for pid, name in named.items() if provider_id in (None, pid)]
        if provider_id is not None and not targets:
            raise ApiFailure("not_found", say("provider.not_configured", id=provider_id))
        found = await asyncio.gather(*(self._discover(pid, name) for pid, name in targets))
        entries = [e for entries, _ in found for e in entries]
        errors = [err for _, err in found if err is not None]
        return m.ModelList(models=entries, errors=errors)

    async def first_model(self, provider_ids: list[str], timeout_s: float = 10.0) -> m.ModelRef | None:
        """Discover the models of `provider_ids` (in order) and pick one, so a new user's first
        message never needs a visit to the model picker. Tool-capable models are preferred;
        a provider that cannot be reached within `timeout_s` is skipped."""
        names = {p.id: p.name for p in self._settings.load().providers}
        names.update({pid: cfg.name or pid for pid, cfg in self._overrides.items()})
        for provider_id in provider_ids:
            try:
                async with asyncio.timeout(timeout_s):
                    entries, _ = await self._discover(provider_id, names.get(provider_id, provider_id))
            except TimeoutError:
                continue
            if entries:
                best = min(entries, key=_preference)
                return m.ModelRef(provider_id=best.provider_id, model=best.model)
        return None

    def provider_ids(self) -> list[str]:
        """Saved profiles in their order, then process-local overrides."""
        ids = [p.id for p in self._settings.load().providers]
        return ids + [pid for pid in self._overrides if pid not in ids]

    async def _discover(self, provider_id: str, name: str) -> tuple[list[m.ModelEntry], ErrorInfo | None]:
        try:
            models: list[ModelInfo] = await self.get(provider_id).list_models()
        except ProviderError as exc:
            message = exc.message if name in exc.message else f"{name}: {exc.message}"
            params = {**exc.details, "provider_id": provider_id}
            return [], ErrorInfo(code=exc.code, message=message, params=params)
        entries = [
            m.ModelEntry(
                provider_id=provider_id,
                provider_name=name,
                model=info.id,
                supports_tools=info.supports_tools,
                supports_vision=info.supports_vision,
            )
            for info in models
        ]
        return entries, None


def key_origin(base_url: str) -> tuple[str, str, int | None]:
    """Where a key is sent: scheme, host and port of the base URL (the path does not matter)."""
    parts = urlsplit(base_url.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), port or default


def _refuse_key_retarget(old_url: str, new_url: str) -> None:
    """A stored key is bound to the host it was entered for: keeping it (the mask) while the base
    URL moves to another scheme, host or port would send it there, so that save is refused."""
    old, new = key_origin(old_url), key_origin(new_url)
    if old != new:
        raise ApiFailure(
            "invalid",
            say("provider.key_retarget", new=new[1] or new_url, old=old[1] or old_url),
            {"api_key": "re-enter the key for the new host"},
        )


def _preference(entry: m.ModelEntry) -> tuple[bool, bool, str]:
    """Tool-capable models first (the agent needs tools), plain text models before vision
    variants, then by name so the choice is stable."""
    return (entry.supports_tools is False, bool(entry.supports_vision), entry.model)

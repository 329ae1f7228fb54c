"""The knowledge settings section (`sections.knowledge` of settings.json): which embeddings
model of which configured provider, if any ("" = lexical only). The provider's key stays in
the keyring and is read when a request is made."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from app.contracts.provider import ProviderConfig, ProviderKind
from app.host.host import SectionStore
from app.settings.secrets import SecretStore, provider_key_name
from app.settings.user_settings import SettingsStore


class KnowledgePrefs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    embeddings_provider: str = Field(default="", max_length=100)
    embeddings_model: str = Field(default="", max_length=200)


@dataclass(frozen=True)
class EmbeddingsChoice:
    provider: ProviderConfig
    model: str


class EmbeddingsAccess:
    """Reads the section (at every use: Settings may change it) and resolves the provider."""

    def __init__(self, settings: SettingsStore, secrets: SecretStore) -> None:
        self._settings = settings
        self._section = SectionStore(settings, "knowledge", KnowledgePrefs)
        self._secrets = secrets

    def prefs(self) -> KnowledgePrefs:
        return self._section.load()

    def save(self, prefs: KnowledgePrefs) -> KnowledgePrefs:
        return self._section.save(prefs)

    def provider_exists(self, provider_id: str) -> bool:
        return self._settings.load().provider(provider_id) is not None

    def choice(self) -> EmbeddingsChoice | None:
        """The configured model and its provider; None when embeddings are off (or the
        provider was deleted since)."""
        prefs = self._section.load()
        if not prefs.embeddings_provider or not prefs.embeddings_model:
            return None
        profile = self._settings.load().provider(prefs.embeddings_provider)
        if profile is None:
            return None
        key = self._secrets.get(provider_key_name(profile.id))
        config = ProviderConfig(
            id=profile.id, kind=ProviderKind(profile.kind), base_url=profile.base_url, api_key=key
        )
        return EmbeddingsChoice(provider=config, model=prefs.embeddings_model)

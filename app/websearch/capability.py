"""Web search settings (`websearch.get` / `websearch.save`) and the tool's configuration.

The backend and its address live in the settings file, in this capability's own section
(`sections.websearch`, `WebSearchPrefs`); API keys only in the keyring."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from app.contracts import replies as m
from app.contracts.capability import Capability, Handler, SettingsSection
from app.contracts.errors import ApiFailure, say
from app.host.host import SectionStore
from app.settings.secrets import SecretStore
from app.settings.user_settings import SettingsStore
from app.websearch.model import DEFAULT_URLS, KEYED, SearchConfig, key_name

if TYPE_CHECKING:  # the route models and the backends load on first use (`ask` start-up)
    from app.websearch import api_models as w


class WebSearchPrefs(BaseModel):
    """`sections.websearch` of settings.json: the backend and its address ("" = its default)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    backend: Literal["duckduckgo", "searxng", "brave", "tavily"] = "duckduckgo"
    url: str = ""


SECTION = SettingsSection("websearch", lambda: WebSearchPrefs)


class WebSearchSettings(Capability):
    name = "websearch"

    def __init__(self, settings: SettingsStore, secrets: SecretStore) -> None:
        self._settings = SectionStore(settings, SECTION.key, WebSearchPrefs)
        self._secrets = secrets

    def routes(self) -> Mapping[str, Handler]:
        return {"websearch.get": self.get, "websearch.save": self.save}

    def config(self) -> SearchConfig:
        """What the tool uses now (read at every call: settings may change between turns)."""
        s = self._settings.load()
        backend = s.backend
        url = s.url or DEFAULT_URLS[backend]
        if not url:
            from app.websearch.backends import SearchFailed

            raise SearchFailed("No SearXNG address: enter your instance's URL in Settings → Web search.")
        key = self._secrets.get(key_name(backend)) if backend in KEYED else None
        return SearchConfig(backend=backend, url=url, api_key=key)

    def _view(self, s: WebSearchPrefs) -> w.WebSearchView:
        from app.websearch import api_models as w

        backend = s.backend
        has_key = backend in KEYED and self._secrets.get(key_name(backend)) is not None
        return w.WebSearchView(
            backend=backend,
            base_url=s.url,
            default_url=DEFAULT_URLS[backend],
            api_key=m.MASK if has_key else "",
            has_key=has_key,
        )

    async def get(self, req: m.Empty) -> w.WebSearchView:
        return self._view(self._settings.load())

    async def save(self, req: w.WebSearchSave) -> w.WebSearchView:
        url = req.base_url.strip()
        if url and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname):
            raise ApiFailure("invalid", say("websearch.bad_url", url=url))
        if req.backend == "searxng" and not url:
            raise ApiFailure("invalid", say("websearch.searxng_url"))
        if req.backend in KEYED and req.api_key != m.MASK:
            # The key first: if the keychain refuses it, the settings are not changed either.
            if req.api_key:
                self._secrets.set(key_name(req.backend), req.api_key)
            else:
                self._secrets.delete(key_name(req.backend))
        return self._view(self._settings.save(WebSearchPrefs(backend=req.backend, url=url)))

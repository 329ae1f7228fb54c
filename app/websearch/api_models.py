"""Request/response models of the web search settings routes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.websearch.model import Backend


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class WebSearchView(_Model):
    backend: Backend
    base_url: str  # "" = the backend's default address
    default_url: str  # the backend's default address ("" for SearXNG: the user's instance)
    api_key: str  # "********" when a key is stored for this backend, "" when none — never the key
    has_key: bool


class WebSearchSave(_Model):
    backend: Backend
    base_url: str = Field(default="", max_length=2000)
    api_key: str = Field(default="********", max_length=500)  # the mask keeps the stored key; "" clears it

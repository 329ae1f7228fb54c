"""The user settings file `<config>/settings.json` (SPEC S10): model, load and atomic save.

A damaged or invalid file is never overwritten silently: `load()` raises `SettingsError`, and
the app may call `quarantine()` to move it aside and start fresh. Secrets never live here.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.support.atomic import atomic_write_text as write_text

ProviderKind = Literal["chat_completions", "responses", "ollama"]
Theme = Literal["system", "light", "dark"]
Language = Literal["en", "zh-CN"]
ApprovalMode = Literal["autonomous", "sandboxed", "ask_writes", "read_only"]
ToolPolicy = Literal["always", "ask", "never"]

# Lowercase slug or UUID: safe inside keyring names (`provider:<id>:api_key`) and URLs.
_PROVIDER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_URL = re.compile(r"^https?://[^\s/?#]+(?:[/?#]\S*)?$", re.IGNORECASE)
MAX_PARALLEL_REQUESTS = 64


class SettingsError(Exception):
    """The settings file cannot be read or is invalid; it was left unchanged."""


class _Frozen(BaseModel):
    # extra="ignore": a file written by a newer CashCode still loads (unknown keys dropped).
    model_config = ConfigDict(frozen=True, extra="ignore")


def validate_provider_id(value: str) -> str:
    if not _PROVIDER_ID.fullmatch(value):
        raise ValueError(f"invalid provider id {value[:70]!r}: use lowercase letters, digits, '-' or '_'")
    return value


def validate_base_url(value: str) -> str:
    url = value.strip()
    if not _URL.fullmatch(url):
        raise ValueError(f"invalid base URL {value[:200]!r}: it must start with http:// or https://")
    return url.rstrip("/")


class ModelSettings(_Frozen):
    """One model's settings in a provider profile (`model` "*": every model of it; a model's own
    entry wins field by field). None = the server's default."""

    model: str = Field(min_length=1, max_length=200)
    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    max_output_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    context_length: int | None = Field(default=None, ge=256, le=10_000_000)


class ProviderProfile(_Frozen):
    id: str
    name: str = Field(min_length=1, max_length=80)
    kind: ProviderKind
    base_url: str
    # Model calls at once (decision 307): None = 1 for a local provider, no limit for a remote
    # one; 0 = no limit.
    parallel_requests: int | None = Field(default=None, ge=0, le=MAX_PARALLEL_REQUESTS)
    # The lean request (decision 309): None = on for a local provider, off for a remote one.
    lean_tools: bool | None = None
    # Seconds a call may wait for the server (None: 60 s) and, once it answered with headers,
    # for the first part of the answer (None: no separate limit). Issue 34.
    timeout_s: float | None = Field(default=None, ge=1, le=3600, allow_inf_nan=False)
    first_token_timeout_s: float | None = Field(default=None, ge=1, le=3600, allow_inf_nan=False)
    default_model: str | None = Field(default=None, min_length=1, max_length=200)
    model_settings: list[ModelSettings] = Field(default_factory=list, max_length=200)

    @field_validator("model_settings")
    @classmethod
    def _one_entry_per_model(cls, entries: list[ModelSettings]) -> list[ModelSettings]:
        models = [e.model for e in entries]
        if len(models) != len(set(models)):
            raise ValueError("each model may have one settings entry only")
        return entries

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str) -> str:
        return validate_provider_id(value)

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        return validate_base_url(value)


class ModelChoice(_Frozen):
    provider_id: str
    model: str = Field(min_length=1, max_length=200)

    @field_validator("provider_id")
    @classmethod
    def _check_provider_id(cls, value: str) -> str:
        return validate_provider_id(value)


ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_()]{0,127}$")


class ModelPrice(_Frozen):
    """Per-million token prices of one provider's model ("*": every model of it); traces use
    them to estimate each turn's cost (app/observability/prices.py)."""

    provider_id: str
    model: str = Field(min_length=1, max_length=200)
    input_per_million: Decimal = Field(ge=0, allow_inf_nan=False)
    output_per_million: Decimal = Field(ge=0, allow_inf_nan=False)


# Flat keys of older settings files -> (capability section, key); read once, written as sections.
_LEGACY_SECTION_KEYS = {
    "web_search_backend": ("websearch", "backend"),
    "web_search_url": ("websearch", "url"),
}


class UserSettings(_Frozen):
    version: int = 1
    providers: list[ProviderProfile] = Field(default_factory=list)
    theme: Theme = "system"
    language: Language = "en"
    workspace: str = ""  # "" = the default workspace
    last_model: ModelChoice | None = None
    approval_mode: ApprovalMode = "ask_writes"
    tool_policies: dict[str, ToolPolicy] = Field(default_factory=dict)
    max_iterations: int = Field(default=20, ge=1, le=200)
    allow_private_network: bool = False
    skill_evolution: bool = False  # SPEC S7.10: proposals from recurring workflows (off by default)
    legacy_migrated: bool = False
    exec_env: list[str] = Field(default_factory=list, max_length=64)  # extra names commands see

    @field_validator("exec_env")
    @classmethod
    def _env_names(cls, names: list[str]) -> list[str]:
        bad = [n for n in names if not ENV_NAME_RE.match(n)]
        if bad:
            raise ValueError(f"not environment variable names: {', '.join(bad)}")
        return list(dict.fromkeys(names))

    # The Sandboxed mode (app/sandbox): absolute paths confined programs may never read (besides
    # the listed secrets and the app's folders), and folders they may read besides the system.
    sandbox_hidden: list[str] = Field(default_factory=list, max_length=200)
    sandbox_readable: list[str] = Field(default_factory=list, max_length=200)

    @field_validator("sandbox_hidden", "sandbox_readable")
    @classmethod
    def _absolute_paths(cls, paths: list[str]) -> list[str]:
        bad = [p for p in paths if not p.startswith("/") or "\x00" in p]
        if bad:
            raise ValueError(f"not absolute paths: {', '.join(bad)}")
        return list(dict.fromkeys(paths))

    local_api: bool = False  # desktop: serve the script API (serve.json) while the window is open
    memory_consolidation_chars: int = Field(default=40_000, ge=1_000, le=10_000_000)  # SPEC S5.2
    dream_enabled: bool = True  # SPEC S5.3
    dream_interval_minutes: int = Field(default=5, ge=1, le=1440)
    dream_review: bool = False  # Dream's changes wait in an inbox
    # provider id -> models the user marked as able to see images (OpenAI-compatible endpoints
    # do not report it; Ollama does, through /api/show).
    vision_models: dict[str, list[str]] = Field(default_factory=dict)
    model_prices: list[ModelPrice] = Field(default_factory=list)
    close_to_tray: bool = True  # desktop: closing the main window hides it when a tray exists
    quick_ask_hotkey: str = Field(default="", max_length=64)  # "" = the platform's default
    # Each capability's own settings (CapabilityPlugin.settings), validated by its model through
    # app/host/host.py SectionStore; kept as JSON here so this module knows no capability.
    sections: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _legacy_sections(cls, data: Any) -> Any:
        """Settings of older builds that now live in a capability's section (one-way move)."""
        if not isinstance(data, dict) or not any(k in data for k in _LEGACY_SECTION_KEYS):
            return data
        data = dict(data)
        sections = dict(data.get("sections") or {})
        for old, (section, key) in _LEGACY_SECTION_KEYS.items():
            if old in data:
                value = data.pop(old)
                moved = dict(sections.get(section) or {})
                moved.setdefault(key, value)
                sections[section] = moved
        data["sections"] = sections
        return data

    @field_validator("providers")
    @classmethod
    def _unique_ids(cls, providers: list[ProviderProfile]) -> list[ProviderProfile]:
        ids = [p.id for p in providers]
        if len(ids) != len(set(ids)):
            raise ValueError("provider ids must be unique")
        return providers

    def provider(self, provider_id: str) -> ProviderProfile | None:
        return next((p for p in self.providers if p.id == provider_id), None)

    def with_provider(self, profile: ProviderProfile) -> UserSettings:
        """A copy with `profile` added, or replacing the one with the same id (same position)."""
        if self.provider(profile.id) is None:
            providers = [*self.providers, profile]
        else:
            providers = [profile if p.id == profile.id else p for p in self.providers]
        return self.model_copy(update={"providers": providers})

    def without_provider(self, provider_id: str) -> UserSettings:
        """A copy without that provider; a remembered model of it is forgotten too."""
        last = self.last_model if self.last_model and self.last_model.provider_id != provider_id else None
        providers = [p for p in self.providers if p.id != provider_id]
        return self.model_copy(update={"providers": providers, "last_model": last})

    def default_provider(self) -> ProviderProfile | None:
        """The provider of the last model choice, else the first one."""
        if self.last_model is not None:
            chosen = self.provider(self.last_model.provider_id)
            if chosen is not None:
                return chosen
        return self.providers[0] if self.providers else None


class SettingsStore:
    """Reads and atomically writes one settings file. `update` is serialised per instance."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()

    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> UserSettings:
        """The saved settings, or defaults when no file exists yet."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return UserSettings()
        except OSError as exc:
            raise SettingsError(f"cannot read the settings file {self.path}: {exc}") from exc
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SettingsError(
                f"the settings file {self.path} is not valid JSON ({exc}); it was left unchanged"
            ) from exc
        except RecursionError as exc:  # deeply nested arrays/objects exhaust the decoder's stack
            raise SettingsError(
                f"the settings file {self.path} is nested too deeply to be settings; it was left unchanged"
            ) from exc
        try:
            return UserSettings.model_validate(data)
        except RecursionError as exc:
            raise SettingsError(
                f"the settings file {self.path} is nested too deeply to be settings; it was left unchanged"
            ) from exc
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
            )
            raise SettingsError(
                f"the settings file {self.path} has invalid values ({problems}); it was left unchanged"
            ) from exc

    def save(self, settings: UserSettings) -> None:
        # Re-validate: model_copy(update=...) skips validation.
        checked = UserSettings.model_validate(settings.model_dump())
        payload = json.dumps(checked.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
        with self._lock:
            atomic_write_text(self.path, payload)

    def update(self, fn: Callable[[UserSettings], UserSettings]) -> UserSettings:
        """Load, apply `fn`, save; returns the saved settings."""
        with self._lock:
            new = fn(self.load())
            self.save(new)
            return self.load()

    def quarantine(self) -> Path | None:
        """Move the current file aside to `settings.json.corrupt-<UTC time>`; returns where."""
        with self._lock:
            if not self.path.exists():
                return None
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
            os.replace(self.path, target)  # not a write: the damaged file is moved aside
            return target


def atomic_write_text(path: Path, text: str) -> None:
    """Owner-only, atomic (app/support/atomic.py)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_text(path, text, mode=0o600)

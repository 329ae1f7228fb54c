"""CLI configuration layering (SPEC S2.5).

Precedence, highest first: flag > env > workspace `.cashcode/config.yaml` > user settings >
defaults. Every value records where it came from (`EffectiveConfig.sources`) for `config show`.

Defaults and why:
- api_mode `chat_completions`: the one protocol nearly every endpoint speaks (OpenAI, DeepSeek,
  Ollama's /v1, LM Studio, vLLM, llama.cpp); Responses must be asked for.
- model `gpt-4o-mini`, base URL `https://api.openai.com/v1`, stream on.
- workspace: the user setting, else the current directory.

Key safety: a key from the keychain belongs to its provider profile and is only used when the
base URL is that profile's (an env/flag/workspace URL override never receives it). The
environment key is not sent to a base URL that comes from the workspace file unless the user
trusted that workspace for exactly that file (app/settings/workspace_trust.py): a cloned
repository must not redirect the key. The workspace file may never contain secrets. `keyring`
is not touched when `OPENAI_API_KEY` is set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast, get_args
from urllib.parse import urlsplit

from app.settings.config_errors import ConfigError
from app.settings.secrets import MASK, SecretStore, SecretStoreError, provider_key_name
from app.settings.user_settings import (
    ModelChoice,
    ProviderKind,
    ProviderProfile,
    SettingsStore,
    UserSettings,
    validate_base_url,
)
from app.settings.workspace_config import WorkspaceConfig, read_workspace_config
from app.settings.workspace_trust import WorkspaceTrust, ascii_host

ApiMode = Literal["chat_completions", "responses"]

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_MODE: ApiMode = "chat_completions"
DEFAULT_STREAM = True

ENV_API_KEY = "OPENAI_API_KEY"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_MODEL = "CASHCODE_MODEL"
ENV_API_MODE = "CASHCODE_API_MODE"
ENV_STREAM = "CASHCODE_STREAM"
ENV_WORKSPACE = "WORKSPACE_DIR"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class CliFlags:
    """Command-line flags; None = not given."""

    provider: str | None = None  # a provider profile id or name
    model: str | None = None
    api_mode: str | None = None
    base_url: str | None = None
    stream: bool | None = None
    workspace: str | None = None
    max_iterations: int | None = None


@dataclass(frozen=True)
class EffectiveConfig:
    provider_id: str | None  # the profile in use, None when none is configured
    provider_kind: ProviderKind
    base_url: str
    model: str
    api_mode: ApiMode
    stream: bool
    workspace: Path  # resolved real path
    max_iterations: int
    api_key: str | None = field(default=None, repr=False)
    sources: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    # Set when a key was withheld because the base URL comes from an untrusted workspace file.
    untrusted: UntrustedWorkspace | None = None
    provider_name: str | None = None  # the profile's name: what banners and errors show


@dataclass(frozen=True)
class UntrustedWorkspace:
    """What the user is asked to trust: this workspace's config file sending the key to host."""

    workspace: Path
    config_file: Path
    config_sha256: str
    host: str
    key_source: str  # e.g. "env OPENAI_API_KEY"

    def refusal(self) -> str:
        return (
            f"the base URL comes from {self.config_file} (host {self.host}), a file of this workspace "
            f"that you have not trusted, so your API key ({self.key_source}) is not sent there; if "
            f"you trust this folder, run `cashcode config trust` in it (or pass --base-url)"
        )


@dataclass
class _Picked:
    """Values chosen so far plus their sources (mutable scratchpad for one resolution)."""

    values: dict[str, object] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def take(self, key: str, layers: list[tuple[object | None, str]]) -> None:
        for value, source in layers:
            if value is not None:
                self.values[key] = value
                self.sources[key] = source
                return


def resolve_cli_config(
    *,
    flags: CliFlags,
    env: Mapping[str, str],
    user: UserSettings,
    secrets: SecretStore | None,
    cwd: Path | None = None,
    trust: WorkspaceTrust | None = None,
) -> EffectiveConfig:
    """`trust`: the user's trusted workspaces (None: none is trusted)."""
    workspace, ws_source = resolve_workspace(flags, env, user, cwd)
    ws_path = workspace / ".cashcode" / "config.yaml"
    ws, ws_digest = read_workspace_config(ws_path)
    ws_src = f"workspace {ws_path}"
    profile, profile_source = _pick_profile(flags, user)
    prof_src = f"user settings (provider {profile.id})" if profile else ""
    p = _Picked()
    p.sources["workspace"] = ws_source
    p.sources["provider"] = profile_source
    _take_layers(p, flags, env, user, ws, ws_src, profile, prof_src)
    # The profile's own kind (e.g. ollama) applies only while nothing above it chose the mode
    # or the endpoint.
    mode = cast(ApiMode, p.values["api_mode"])
    own = profile is not None and p.sources["api_mode"] == p.sources["base_url"] == prof_src
    kind: ProviderKind = profile.kind if profile is not None and own else mode
    key, key_source, warnings = _resolve_key(env, secrets, profile, p.sources["base_url"] == prof_src)
    untrusted: UntrustedWorkspace | None = None
    if key and p.sources["base_url"] == ws_src and ws_digest is not None:
        host = ascii_host(urlsplit(cast(str, p.values["base_url"])).netloc) or "?"
        if trust is not None and trust.is_trusted(workspace, ws_digest):
            warnings.append(f"the base URL comes from {ws_path} (trusted); your API key is sent to {host}")
        else:
            untrusted = UntrustedWorkspace(workspace, ws_path, ws_digest, host, key_source)
            key, key_source = None, f"withheld ({ws_path} is not trusted to receive it)"
    p.sources["api_key"] = key_source
    return EffectiveConfig(
        provider_id=profile.id if profile else None,
        provider_kind=kind,
        base_url=cast(str, p.values["base_url"]),
        model=cast(str, p.values["model"]),
        api_mode=mode,
        stream=cast(bool, p.values["stream"]),
        workspace=workspace,
        max_iterations=cast(int, p.values["max_iterations"]),
        api_key=key,
        sources=dict(p.sources),
        warnings=tuple(warnings),
        untrusted=untrusted,
        provider_name=profile.name if profile else None,
    )


def _take_layers(
    p: _Picked,
    flags: CliFlags,
    env: Mapping[str, str],
    user: UserSettings,
    ws: WorkspaceConfig,
    ws_src: str,
    profile: ProviderProfile | None,
    prof_src: str,
) -> None:
    """Each setting from the first layer that sets it: flag, env, workspace, provider, default."""
    p.take(
        "base_url",
        [
            (_url(flags.base_url, "--base-url"), "flag --base-url"),
            (_url(env.get(ENV_BASE_URL) or None, ENV_BASE_URL), f"env {ENV_BASE_URL}"),
            (ws.base_url, ws_src),
            (profile.base_url if profile else None, prof_src),
            (DEFAULT_BASE_URL, "default"),
        ],
    )
    p.take(
        "api_mode",
        [
            (_api_mode(flags.api_mode, "--api-mode"), "flag --api-mode"),
            (_api_mode(env.get(ENV_API_MODE) or None, ENV_API_MODE), f"env {ENV_API_MODE}"),
            (ws.api_mode, ws_src),
            (_profile_api_mode(profile), prof_src),
            (DEFAULT_API_MODE, "default"),
        ],
    )
    p.take(
        "model",
        [
            (flags.model or None, "flag --model"),
            (env.get(ENV_MODEL) or None, f"env {ENV_MODEL}"),
            (ws.model, ws_src),
            (_remembered_model(user, profile), "user settings (last model)"),
            (profile.default_model if profile else None, f"{prof_src}, its default model"),
            (DEFAULT_MODEL, "default"),
        ],
    )
    p.take(
        "stream",
        [
            (flags.stream, "flag --stream"),
            (_bool(env.get(ENV_STREAM) or None, ENV_STREAM), f"env {ENV_STREAM}"),
            (ws.stream, ws_src),
            (DEFAULT_STREAM, "default"),
        ],
    )
    p.take(
        "max_iterations",
        [
            (_iterations(flags.max_iterations), "flag --max-iterations"),
            (ws.max_iterations, ws_src),
            (user.max_iterations, "user settings"),
        ],
    )


def resolve_workspace(
    flags: CliFlags, env: Mapping[str, str], user: UserSettings, cwd: Path | None
) -> tuple[Path, str]:
    layers = [
        (flags.workspace, "flag --workspace"),
        (env.get(ENV_WORKSPACE) or None, f"env {ENV_WORKSPACE}"),
        (user.workspace or None, "user settings"),
    ]
    fallback = (str(cwd or Path.cwd()), "default (current directory)")
    raw, source = next(((v, s) for v, s in layers if v), fallback)
    path = Path(os.path.realpath(Path(raw).expanduser()))
    if not path.is_dir():
        raise ConfigError(f"workspace {raw!r} (from {source}) is not an existing folder")
    return path, source


def _pick_profile(flags: CliFlags, user: UserSettings) -> tuple[ProviderProfile | None, str]:
    if flags.provider:
        wanted = flags.provider
        found = user.provider(wanted) or next((p for p in user.providers if p.name == wanted), None)
        if found is None:
            known = ", ".join(f"{p.name} (id {p.id})" for p in user.providers) or "none configured"
            raise ConfigError(f"unknown provider {wanted!r} (known: {known})")
        return found, "flag --provider"
    chosen = user.default_provider()
    if chosen is None:
        return None, "none configured"
    last = user.last_model
    if last is not None and last.provider_id == chosen.id:
        return chosen, "user settings (last model)"
    return chosen, "user settings (first provider)"


def _profile_api_mode(profile: ProviderProfile | None) -> ApiMode | None:
    if profile is None:
        return None
    return "responses" if profile.kind == "responses" else "chat_completions"


def _remembered_model(user: UserSettings, profile: ProviderProfile | None) -> str | None:
    last: ModelChoice | None = user.last_model
    if last is not None and profile is not None and last.provider_id == profile.id:
        return last.model
    return None


def _resolve_key(
    env: Mapping[str, str],
    secrets: SecretStore | None,
    profile: ProviderProfile | None,
    url_is_profiles: bool,
) -> tuple[str | None, str, list[str]]:
    if env.get(ENV_API_KEY):
        return env[ENV_API_KEY], f"env {ENV_API_KEY}", []
    if secrets is None or profile is None:
        return None, "not set", []
    if not url_is_profiles:
        return None, f"not set (the keychain key of {profile.name} is not sent to an overridden base URL)", []
    try:
        key = secrets.get(provider_key_name(profile.id))
    except SecretStoreError as exc:
        return None, "not set (keychain error)", [str(exc)]
    if key:
        return key, f"keychain ({provider_key_name(profile.id)})", []
    return None, "not set", []


def _url(value: str | None, where: str) -> str | None:
    if value is None:
        return None
    try:
        return validate_base_url(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def _api_mode(value: str | None, where: str) -> ApiMode | None:
    if value is None:
        return None
    if value not in get_args(ApiMode):
        raise ConfigError(f"{where}: invalid api mode {value!r} (use responses or chat_completions)")
    return cast(ApiMode, value)


def _bool(value: str | None, where: str) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"{where}: expected true/false (1/0, yes/no, on/off), got {value!r}")


def _iterations(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= 200:
        raise ConfigError(f"--max-iterations must be between 1 and 200, got {value}")
    return value


def _hide_credentials(url: str) -> str:
    return re.sub(r"^([a-z]+://)[^/?#]*@", rf"\1{MASK}@", url, flags=re.IGNORECASE)


def _provider_shown(cfg: EffectiveConfig) -> str:
    if cfg.provider_id is None:
        return "(none)"
    return f"{cfg.provider_name} (id {cfg.provider_id})" if cfg.provider_name else cfg.provider_id


def render_config(cfg: EffectiveConfig) -> str:
    """`config show`: every effective value with its source; the key only as set/not set."""
    s = cfg.sources
    rows = [
        ("provider", _provider_shown(cfg), s.get("provider", "")),
        ("provider_kind", cfg.provider_kind, ""),
        ("base_url", _hide_credentials(cfg.base_url), s.get("base_url", "")),
        ("model", cfg.model, s.get("model", "")),
        ("api_mode", cfg.api_mode, s.get("api_mode", "")),
        ("stream", str(cfg.stream).lower(), s.get("stream", "")),
        ("workspace", str(cfg.workspace), s.get("workspace", "")),
        ("max_iterations", str(cfg.max_iterations), s.get("max_iterations", "")),
    ]
    lines = [f"{k}: {v}" + (f"  ({src})" if src else "") for k, v, src in rows]
    key_src = s.get("api_key", "not set")
    lines.append(f"api_key: set ({key_src})" if cfg.api_key else f"api_key: {key_src}")
    lines += [f"warning: {w}" for w in cfg.warnings]
    if cfg.untrusted is not None:
        lines.append(f"warning: {cfg.untrusted.refusal()}")
    return "\n".join(lines)


# ---- legacy DEEPSEEK_* migration -------------------------------------------------------------

LEGACY_KEY = "DEEPSEEK_API_KEY"
LEGACY_BASE = "DEEPSEEK_API_BASE"
LEGACY_PROVIDER_ID = "deepseek"
LEGACY_DEFAULT_BASE = "https://api.deepseek.com"
LEGACY_DEFAULT_MODEL = "deepseek-chat"


def migrate_legacy_env(env: Mapping[str, str], store: SettingsStore, secrets: SecretStore) -> bool:
    """Turn DEEPSEEK_API_KEY/DEEPSEEK_API_BASE into a "deepseek" profile, once.

    Runs only while the settings have no providers and `legacy_migrated` is false; afterwards
    the variables are never read again. The key goes to the keychain; if there is none,
    `KeyringUnavailable` propagates and nothing is written (it will be tried next start).
    Returns True when a profile was created.
    """
    key = env.get(LEGACY_KEY) or None
    base = env.get(LEGACY_BASE) or None
    if key is None and base is None:
        return False
    current = store.load()
    if current.legacy_migrated or current.providers:
        return False
    base_url = _url(base, LEGACY_BASE) or LEGACY_DEFAULT_BASE
    if key is not None:
        secrets.set(provider_key_name(LEGACY_PROVIDER_ID), key)
    profile = ProviderProfile(
        id=LEGACY_PROVIDER_ID, name="DeepSeek", kind="chat_completions", base_url=base_url
    )

    def apply(s: UserSettings) -> UserSettings:
        return s.model_copy(
            update={
                "providers": [profile],
                "last_model": s.last_model or ModelChoice(provider_id=profile.id, model=LEGACY_DEFAULT_MODEL),
                "legacy_migrated": True,
            }
        )

    store.update(apply)
    return True


__all__ = [
    "ApiMode",
    "CliFlags",
    "ConfigError",
    "EffectiveConfig",
    "UntrustedWorkspace",
    "WorkspaceConfig",
    "migrate_legacy_env",
    "render_config",
    "resolve_cli_config",
    "resolve_workspace",
]

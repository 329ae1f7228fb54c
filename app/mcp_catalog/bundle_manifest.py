"""An MCP Bundle's `manifest.json` (the MCPB spec, manifest versions 0.1 to 0.4), validated.

The fields are those of the spec's strict schema: an unknown field, a missing required one or a
wrong type is refused with the field's path. On top of the schema, what CashCode needs to run
the bundle safely: a server type it runs (node, python, binary; `uv` and anything else is
refused with the reason), an entry point inside the bundle, `${user_config.KEY}` naming a
declared option, and a sensitive option used only in `env` (it goes to the keychain; an
argument would be stored in servers.json and shown in process lists).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.contracts.errors import say

VERSIONS = ("0.1", "0.2", "0.3", "0.4")
SERVER_TYPES = ("node", "python", "binary")
PLATFORMS = ("darwin", "win32", "linux")
MAX_MANIFEST_BYTES = 1024 * 1024
USER_TOKEN = re.compile(r"\$\{user_config\.([^}]*)\}")
KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,100}$")


class ManifestError(ValueError):
    """The manifest is missing, not JSON, or breaks the spec or a rule above; says where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Author(_Strict):
    name: str = Field(min_length=1, max_length=200)
    email: str | None = None
    url: str | None = None


class Repository(_Strict):
    type: str
    url: str


class Icon(_Strict):
    src: str
    size: str = Field(pattern=r"^\d+x\d+$")
    theme: str | None = None


class Localization(_Strict):
    resources: str
    default_locale: str


class PlatformOverride(_Strict):
    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None


class McpConfig(_Strict):
    command: str = Field(min_length=1, max_length=4_000)
    args: list[str] = Field(default_factory=list, max_length=200)
    env: dict[str, str] = Field(default_factory=dict)
    platform_overrides: dict[str, PlatformOverride] = Field(default_factory=dict)

    def for_platform(self, platform: str) -> McpConfig:
        """The spec's platform override: each given part replaces the base one."""
        over = self.platform_overrides.get(platform)
        if over is None:
            return self
        return McpConfig(
            command=over.command or self.command,
            args=self.args if over.args is None else over.args,
            env=self.env if over.env is None else over.env,
        )


class Server(_Strict):
    type: str
    entry_point: str = Field(min_length=1, max_length=1_000)
    mcp_config: McpConfig | None = None  # required for the three types CashCode runs


class Tool(_Strict):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""


class Prompt(_Strict):
    name: str
    description: str | None = None
    arguments: list[str] | None = None
    text: str


class Runtimes(_Strict):
    python: str | None = None
    node: str | None = None


class Compatibility(BaseModel):
    # Client version constraints are keyed by any client name (`claude_desktop`, ...).
    model_config = ConfigDict(extra="allow", frozen=True)

    platforms: list[Literal["darwin", "win32", "linux"]] | None = None
    runtimes: Runtimes | None = None


OptionType = Literal["string", "number", "boolean", "directory", "file"]


class UserConfigOption(_Strict):
    type: OptionType
    title: str = Field(min_length=1, max_length=200)
    description: str = Field(max_length=2_000)
    required: bool = False
    default: str | bool | float | list[str] | None = None
    multiple: bool = False
    sensitive: bool = False
    min: float | None = None
    max: float | None = None


class Manifest(_Strict):
    schema_: str | None = Field(default=None, alias="$schema")
    dxt_version: str | None = None
    manifest_version: str | None = None
    name: str = Field(min_length=1, max_length=200)
    display_name: str | None = None
    version: str = Field(min_length=1, max_length=100)
    description: str = Field(max_length=4_000)
    long_description: str | None = None
    author: Author
    repository: Repository | None = None
    homepage: str | None = None
    documentation: str | None = None
    support: str | None = None
    icon: str | None = None
    icons: list[Icon] | None = None
    screenshots: list[str] | None = None
    localization: Localization | None = None
    server: Server
    tools: list[Tool] = Field(default_factory=list)
    tools_generated: bool = False
    prompts: list[Prompt] = Field(default_factory=list)
    prompts_generated: bool = False
    keywords: list[str] | None = None
    license: str | None = None
    privacy_policies: list[str] | None = None
    compatibility: Compatibility | None = None
    user_config: dict[str, UserConfigOption] = Field(default_factory=dict)
    meta: dict[str, dict[str, Any]] | None = Field(default=None, alias="_meta")

    @property
    def spec_version(self) -> str:
        return self.manifest_version or self.dxt_version or ""

    @property
    def config(self) -> McpConfig:
        assert self.server.mcp_config is not None  # checked by parse_manifest
        return self.server.mcp_config.for_platform(this_platform())


def this_platform() -> str:
    """The spec's platform names are Node's `process.platform` (Python's sys.platform but for
    Linux, where older Pythons say `linux2`)."""
    return "linux" if sys.platform.startswith("linux") else sys.platform


def _where(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"{where}: {first['msg']}"


def parse_manifest(raw: bytes) -> Manifest:
    """The manifest, or ManifestError saying what is wrong."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ManifestError(say("bundle.manifest.not_json", detail=str(exc)[:120])) from None
    if not isinstance(data, dict):
        raise ManifestError(say("bundle.manifest.not_object"))
    version = data.get("manifest_version") or data.get("dxt_version")
    if version is None:
        raise ManifestError(say("bundle.manifest.no_version"))
    if version not in VERSIONS:
        raise ManifestError(
            say("bundle.manifest.bad_version", version=str(version)[:20], versions=", ".join(VERSIONS))
        )
    server = data.get("server")
    if isinstance(server, dict) and "type" in server and server["type"] not in SERVER_TYPES:
        shown = str(server["type"])[:40]
        if shown == "uv":
            raise ManifestError(say("bundle.manifest.uv_type"))
        raise ManifestError(say("bundle.manifest.bad_type", type=shown))
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(say("bundle.manifest.not_spec", where=_where(exc))) from None
    _check(manifest)
    return manifest


def _check(m: Manifest) -> None:
    if m.server.mcp_config is None:
        raise ManifestError(say("bundle.manifest.not_spec", where="server.mcp_config: Field required"))
    check_relative(m.server.entry_point, "server.entry_point")
    for key, option in m.user_config.items():
        if KEY_RE.fullmatch(key) is None:
            raise ManifestError(say("bundle.manifest.bad_key", option=key[:60]))
        if option.sensitive and option.type != "string":
            raise ManifestError(say("bundle.manifest.sensitive_type", option=key))
        if option.multiple and option.type not in ("directory", "file"):
            raise ManifestError(say("bundle.manifest.multiple_type", option=key))
        if (option.min is not None or option.max is not None) and option.type != "number":
            raise ManifestError(say("bundle.manifest.min_max_type", option=key))
    configs = [
        m.server.mcp_config,
        *(_full(m.server.mcp_config, p) for p in m.server.mcp_config.platform_overrides),
    ]
    for config in configs:
        for name, value in config.env.items():
            if ENV_RE.fullmatch(name) is None:
                raise ManifestError(say("bundle.manifest.env_name", name=name[:60]))
            _check_tokens(m, value, where=f"env {name}", secret_ok=True)
        for arg in [config.command, *config.args]:
            _check_tokens(m, arg, where="the command line", secret_ok=False)


def _full(base: McpConfig, platform: str) -> McpConfig:
    return base.for_platform(platform)


def _check_tokens(m: Manifest, text: str, where: str, secret_ok: bool) -> None:
    for key in USER_TOKEN.findall(text):
        option = m.user_config.get(key)
        if option is None:
            raise ManifestError(say("bundle.manifest.undeclared", option=key[:60]))
        if option.sensitive and not secret_ok:
            raise ManifestError(say("bundle.manifest.secret_on_command", option=key))


def check_relative(path: str, field: str) -> tuple[str, ...]:
    """A path inside the bundle: relative, '/'-separated, no '..'; its parts."""
    clean = path.removeprefix("./")
    parts = tuple(clean.split("/"))
    if (
        clean.startswith("/")
        or "\\" in clean
        or re.match(r"^[A-Za-z]:", clean)
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise ManifestError(say("bundle.manifest.outside", field=field, path=path[:200]))
    return parts

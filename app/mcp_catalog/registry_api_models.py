"""Request/response models of the mcp_catalog.registry.* routes (the MCP Registry in the
Market and `cashcode mcp catalog`). No secret value is ever in a reply."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contracts.mcp_apps import McpAppsProbe
from app.contracts.replies import ApiModel as _Model


class RegistryInputView(_Model):
    key: str  # what `--input KEY=VALUE` names
    target: Literal["env", "arg", "header", "variable"]
    description: str
    required: bool
    secret: bool  # stored in the system keychain, shown masked
    default: str
    choices: list[str]
    placeholder: str
    repeated: bool


class RegistryOptionView(_Model):
    index: int
    kind: Literal["package", "remote"]
    registry: str  # npm, pypi, … ("" for a remote)
    identifier: str
    version: str
    transport: str  # stdio, streamable-http, sse
    url: str
    problem: str  # "" = it can be installed here
    inputs: list[RegistryInputView]


class RegistryServerView(_Model):
    source: Literal["registry"] = "registry"
    name: str  # the registry's name, e.g. io.github.acme/weather
    id: str  # the MCP server entry an install creates
    title: str
    description: str
    version: str
    website: str
    repository: str
    status: str  # active | deprecated
    installed: bool
    install_option: int  # the option an install uses by default (-1: none can be installed)
    options: list[RegistryOptionView]


class RegistryList(_Model):
    # unset: no address configured; live: just fetched; cached: from the disk cache (fresh, or
    # the last answer when the registry cannot be reached); offline: unreachable, nothing cached
    state: Literal["unset", "live", "cached", "offline"]
    base_url: str
    notice: str  # why offline / since when cached ("" when live)
    fetched_at: float = 0.0  # seconds since the epoch of the shown answer
    servers: list[RegistryServerView]
    next_cursor: str = ""
    skipped: list[str] = Field(default_factory=list)  # malformed entries left out, one line each


class RegistrySearch(_Model):
    search: str = Field(default="", max_length=200)
    cursor: str = Field(default="", max_length=1_000)
    refresh: bool = False  # ask the registry even when the cache is fresh


class RegistryInstall(_Model):
    name: str = Field(min_length=3, max_length=200)
    version: str = Field(default="", max_length=255)  # "" = the latest
    option: int = Field(default=-1, ge=-1, le=100)  # -1: the entry's default install option
    inputs: dict[str, list[str]] = Field(default_factory=dict)
    # install only: the plan's `confirm` (what was shown is what is installed, else refused)
    confirm: str = Field(default="", max_length=64)
    # install only: the separate confirmation of loader variables (NODE_OPTIONS, PYTHONPATH, …)
    allow_loader_env: bool = False
    # install only: secret headers over plain http:// to another computer
    allow_plain_http_auth: bool = False


class RegistryPlan(_Model):
    """Everything an install would write, shown before it (issue 33 items 2, 5 and 9)."""

    id: str  # the MCP server entry it creates
    commands: list[str]  # exactly what the install runs, in order
    folder: str  # where it installs ("" for a remote)
    kind: Literal["package", "remote"]
    registry: str  # npm | pypi ("" for a remote)
    identifier: str  # the pinned package
    version: str
    file_sha256: str  # the package's hash when the entry gives one
    argv: list[str]  # what the entry will run: the package's program, then every argument
    env: dict[str, str]  # every variable; secret values are ********
    loader_env: list[str]  # variables that change which code runs: need allow_loader_env
    url: str  # a remote's URL
    transport: str
    headers: dict[str, str]  # a remote's headers; secret values are ********
    # the remote's host is this computer, a link-local or a private (LAN) address ("": public)
    address: Literal["", "loopback", "link_local", "private"]
    plain_http_secrets: list[str]  # secret headers that would cross the network unencrypted
    confirm: str  # what the install must send back
    # its tools with MCP Apps: an mcpb package's server asked in the sandbox; a remote or a
    # package not downloaded yet says when they are known (decision 551)
    apps: McpAppsProbe = Field(default_factory=lambda: McpAppsProbe(state="not_installed"))


class RegistrySettingsView(_Model):
    registry_url: str  # what is in force ("" = none)
    saved_url: str  # what the settings file holds
    from_env: bool  # CASHCODE_MCP_REGISTRY_URL overrides the setting
    env_var: str


class RegistrySettingsSave(_Model):
    registry_url: str = Field(default="", max_length=500)

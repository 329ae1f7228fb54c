"""Request/response models of the mcp_catalog.* routes. No secret value is ever in a reply."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contracts.mcp_apps import McpAppsProbe
from app.contracts.replies import ApiModel as _Model


class CatalogText(_Model):
    en: str
    zh_cn: str


class CatalogInputView(_Model):
    key: str
    kind: Literal["text", "folder", "folders", "file", "secret"]
    title: CatalogText
    description: CatalogText
    required: bool
    default: str  # with ${home}, ${workspace}, ${data} filled in
    secret: bool  # stored in the system keychain, shown masked


class CatalogServerView(_Model):
    id: str  # also the name of the MCP server an install creates
    title: CatalogText
    description: CatalogText
    transport: Literal["stdio"]
    registry: Literal["npm", "pypi"]
    package: str
    version: str
    read_only: bool
    inputs: list[CatalogInputView]
    installed: bool
    problem: str = ""  # why it cannot be installed here ("" = it can), e.g. no Node.js


class CatalogList(_Model):
    servers: list[CatalogServerView]
    node_version: str = ""
    node_problem: str = ""


class CatalogSearch(_Model):
    search: str = Field(default="", max_length=200)


class CatalogInstall(_Model):
    name: str = Field(min_length=1, max_length=214)
    inputs: dict[str, list[str]] = Field(default_factory=dict)


class CatalogPlan(_Model):
    id: str
    commands: list[str]  # exactly what the install runs, in order
    folder: str  # where it installs (inside the app's cache)
    # a package is downloaded only by the install: its Apps are listed when it is installed
    apps: McpAppsProbe = Field(default_factory=lambda: McpAppsProbe(state="not_installed"))


class CatalogInstalled(_Model):
    server: str
    commands: list[str]
    argv: list[str]  # what the new MCP server entry runs
    # its Apps, asked of the installed server started once in the sandbox (None: a bundle,
    # whose preview listed them)
    apps: McpAppsProbe | None = None


class CatalogRef(_Model):
    name: str = Field(min_length=1, max_length=214)


class CatalogRemoved(_Model):
    server: str
    removed_entry: bool
    removed_files: bool


# ---- MCP Bundles (.mcpb) -------------------------------------------------------------------------

MAX_BUNDLE_UPLOAD_B64 = 180 * 1024 * 1024  # a 128 MiB bundle as base64 (the browser's upload)


class BundleSource(_Model):
    """A `.mcpb` on this machine (desktop, CLI) or uploaded bytes (browser), and the values of
    its user_config (key -> values; one value unless the option takes several)."""

    path: str | None = Field(default=None, max_length=4096)
    data_base64: str | None = Field(default=None, max_length=MAX_BUNDLE_UPLOAD_B64)
    filename: str | None = Field(default=None, max_length=255)
    inputs: dict[str, list[str]] = Field(default_factory=dict)
    # install only: the separate confirmation of loader variables (the preview's `loader_env`)
    allow_loader_env: bool = False


class BundleAuthor(_Model):
    name: str
    email: str = ""
    url: str = ""


class BundleTool(_Model):
    name: str
    description: str


class BundleOptionView(_Model):
    key: str
    type: Literal["string", "number", "boolean", "directory", "file"]
    title: str
    description: str
    required: bool
    sensitive: bool  # a password field; the value goes to the system keychain
    multiple: bool  # several folders or files
    default: list[str]  # with ${HOME} and the other variables filled in
    min: float | None = None
    max: float | None = None


class BundlePreview(_Model):
    """Everything shown before anything is installed. `argv` is exactly what the entry will run
    with the values given so far (defaults, else `${user_config.KEY}` for a missing one)."""

    id: str  # the MCP server it creates
    name: str
    display_name: str
    version: str
    description: str
    long_description: str
    author: BundleAuthor
    manifest_version: str
    server_type: Literal["node", "python", "binary"]
    tools: list[BundleTool]
    tools_generated: bool
    prompts: list[str]
    argv: list[str]
    env: dict[str, str]  # sensitive values are ********
    # variables that change which code runs (NODE_OPTIONS, LD_PRELOAD, …): need allow_loader_env
    loader_env: list[str] = Field(default_factory=list)
    commands: list[str]  # what the install does, in order
    folder: str
    options: list[BundleOptionView]
    size: int
    sha256: str
    problem: str = ""  # why it cannot be installed here ("" = it can), e.g. no Node.js
    conflict: str = ""  # an MCP server of that name exists
    input_problem: str = ""  # the values given are not (yet) acceptable
    # input_problem's catalog entry (app/contracts/error_texts.py): the UI words it in its language
    input_problem_key: str = ""
    input_problem_params: dict[str, str] = Field(default_factory=dict)
    missing_input: str = ""  # the key of a required option left empty (the CLI says `--input`)
    # Its tools with MCP Apps, asked of the server started once in the sandbox (decision 550)
    apps: McpAppsProbe = Field(default_factory=lambda: McpAppsProbe(state="unknown"))

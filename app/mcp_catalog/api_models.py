"""Request/response models of the mcp_catalog.* routes. No secret value is ever in a reply."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

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


class CatalogInstalled(_Model):
    server: str
    commands: list[str]
    argv: list[str]  # what the new MCP server entry runs


class CatalogRef(_Model):
    name: str = Field(min_length=1, max_length=214)


class CatalogRemoved(_Model):
    server: str
    removed_entry: bool
    removed_files: bool

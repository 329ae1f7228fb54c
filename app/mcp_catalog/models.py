"""The curated catalog's data model (resources/mcp_catalog/catalog.json), validated on load.

An entry names a package with an exact version, how to run its entry point and the inputs the
user fills in. Templates are `${input:KEY}` (an input's value) and, in defaults only, `${home}`,
`${workspace}` and `${data}` (a folder of the app's data kept for that server).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.support.launch_env import is_loader_env

ID_RE = r"^[a-z0-9][a-z0-9-]{0,47}$"
KEY_RE = r"^[a-z][a-z0-9_]{0,39}$"
ENV_RE = r"^[A-Za-z_][A-Za-z0-9_]{0,100}$"
# An exact version only (no ranges): what is installed is what was reviewed.
VERSION_RE = r"^[0-9]+(\.[0-9]+){0,3}([a-z0-9.+-]*)$"
INPUT_TOKEN = re.compile(r"\$\{input:([a-z][a-z0-9_]{0,39})\}")
DEFAULT_TOKENS = ("${home}", "${workspace}", "${data}")

InputKind = Literal["text", "folder", "folders", "file", "secret"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Localized(_Model):
    """English and Simplified Chinese text; both are required."""

    en: str = Field(min_length=1, max_length=400)
    zh_cn: str = Field(alias="zh-CN", min_length=1, max_length=400)

    def pick(self, lang: str) -> str:
        return self.zh_cn if lang.lower().startswith("zh") else self.en


class Package(_Model):
    registry: Literal["npm", "pypi"]
    name: str = Field(pattern=r"^(@[a-z0-9][a-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")
    version: str = Field(pattern=VERSION_RE)
    bin: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")  # the entry point's name

    @property
    def spec(self) -> str:
        """What the package manager is asked for: the exact pinned version."""
        return f"{self.name}=={self.version}" if self.registry == "pypi" else f"{self.name}@{self.version}"


class CatalogInput(_Model):
    key: str = Field(pattern=KEY_RE)
    kind: InputKind
    title: Localized
    description: Localized
    required: bool = False
    default: str = Field(default="", max_length=400)
    env: str | None = Field(default=None, pattern=ENV_RE)  # a secret's variable

    @model_validator(mode="after")
    def _secret_has_env(self) -> CatalogInput:
        if self.kind == "secret" and (self.env is None or self.default):
            raise ValueError(f"secret input {self.key!r} needs `env` and no default")
        if self.kind != "secret" and self.env is not None:
            raise ValueError(f"input {self.key!r}: only a secret names an `env` (others are templates)")
        return self


class CatalogEntry(_Model):
    id: str = Field(pattern=ID_RE)  # also the name of the MCP server it creates
    title: Localized
    description: Localized
    transport: Literal["stdio"]
    package: Package
    # Argument groups: a group is left out when an input it names is empty (an optional flag).
    args: tuple[tuple[str, ...], ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    inputs: tuple[CatalogInput, ...] = ()
    read_only: bool

    @model_validator(mode="after")
    def _templates_name_inputs(self) -> CatalogEntry:
        kinds = {i.key: i.kind for i in self.inputs}
        if len(kinds) != len(self.inputs):
            raise ValueError(f"{self.id}: two inputs share a key")
        for text in [*(a for g in self.args for a in g), *self.env.values()]:
            for key in INPUT_TOKEN.findall(text):
                if key not in kinds:
                    raise ValueError(f"{self.id}: {text!r} names no input {key!r}")
                if kinds[key] == "secret":
                    raise ValueError(f"{self.id}: a secret goes to the keyring, never into args or env")
        for group in self.args:
            for arg in group:
                folders = any(kinds.get(k) == "folders" for k in INPUT_TOKEN.findall(arg))
                if folders and INPUT_TOKEN.fullmatch(arg) is None:
                    raise ValueError(f"{self.id}: a folders input must be a whole argument")
        for key in [*self.env, *(i.env for i in self.inputs if i.env)]:
            if re.fullmatch(ENV_RE, key) is None:
                raise ValueError(f"{self.id}: invalid environment variable name {key!r}")
            if is_loader_env(key):  # the curated catalog never needs one (decision 281)
                raise ValueError(f"{self.id}: {key} changes which code runs; a catalog entry may not set it")
        return self

    def matches(self, text: str) -> bool:
        needle = text.strip().lower()
        hay = " ".join(
            [
                self.id,
                self.package.name,
                self.title.en,
                self.title.zh_cn,
                self.description.en,
                self.description.zh_cn,
            ]
        ).lower()
        return all(word in hay for word in needle.split())


class Catalog(_Model):
    version: Literal[1]
    servers: tuple[CatalogEntry, ...]

    @model_validator(mode="after")
    def _unique(self) -> Catalog:
        ids = [s.id for s in self.servers]
        if len(set(ids)) != len(ids):
            raise ValueError("two catalog entries share an id")
        return self

    def find(self, name: str) -> CatalogEntry | None:
        """By id (`time`) or by package name (`mcp-server-time`, `@scope/server-memory`)."""
        return next((s for s in self.servers if name in (s.id, s.package.name)), None)

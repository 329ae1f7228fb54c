"""The MCP Registry's published wire format (API 2025-12-01, `/v0.1/servers`; server.json of
2025-12-11), the parts this app reads. Lenient on what it does not use (unknown fields are
ignored) and strict on what it runs: an entry that fails here is skipped with a diagnostic.

List response: `{"servers": [{"server": ServerDetail, "_meta": {...}}], "metadata":
{"nextCursor": str, "count": int}}`; one version: a single `{"server": ..., "_meta": ...}`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

OFFICIAL_META = "io.modelcontextprotocol.registry/official"

# C0/C1 controls (newline, CR, ESC, NEL), DEL, the Unicode line/paragraph separators and the bidi
# embedding/override/isolate marks: a registry's text is someone else's, and a newline in a
# description printed a fake "curated" line (issue 33 item 9). Each becomes a space when the
# entry is read, so the CLI, the REST answers and the Market all get neutral text.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def neutral(text: str) -> str:
    return _CONTROLS.sub(" ", text)


def _neutral_any(value: Any) -> Any:
    if isinstance(value, str):
        return neutral(value)
    if isinstance(value, list):
        return [neutral(v) if isinstance(v, str) else v for v in value]
    if isinstance(value, dict):
        return {neutral(k) if isinstance(k, str) else k: v for k, v in value.items()}
    return value


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_controls(cls, value: Any) -> Any:
        return _neutral_any(value)


class WireInput(_Wire):
    description: str = Field(default="", max_length=2_000)
    is_required: bool = Field(default=False, alias="isRequired")
    format: str = "string"
    value: str | None = Field(default=None, max_length=4_000)
    is_secret: bool = Field(default=False, alias="isSecret")
    default: str | None = Field(default=None, max_length=4_000)
    placeholder: str = Field(default="", max_length=400)
    choices: list[str] = Field(default_factory=list, max_length=200)


class WireInputWithVariables(WireInput):
    variables: dict[str, WireInput] = Field(default_factory=dict, max_length=50)


class WireKeyValue(WireInputWithVariables):
    name: str = Field(min_length=1, max_length=200)  # an environment variable or header name


class WireArgument(WireInputWithVariables):
    type: Literal["positional", "named"]
    name: str = Field(default="", max_length=200)  # a named argument's flag, with its dashes
    value_hint: str = Field(default="", alias="valueHint", max_length=200)
    is_repeated: bool = Field(default=False, alias="isRepeated")


class WireTransport(_Wire):
    type: str = Field(min_length=1, max_length=40)  # stdio | streamable-http | sse
    url: str = Field(default="", max_length=2_000)
    headers: list[WireKeyValue] = Field(default_factory=list, max_length=50)
    variables: dict[str, WireInput] = Field(default_factory=dict, max_length=50)  # remotes only


class WirePackage(_Wire):
    registry_type: str = Field(alias="registryType", min_length=1, max_length=40)
    identifier: str = Field(min_length=1, max_length=400)
    version: str = Field(default="", max_length=255)
    runtime_hint: str = Field(default="", alias="runtimeHint", max_length=100)
    file_sha256: str = Field(default="", alias="fileSha256", max_length=64)  # shown and pinned
    transport: WireTransport
    package_arguments: list[WireArgument] = Field(
        default_factory=list, alias="packageArguments", max_length=100
    )
    environment_variables: list[WireKeyValue] = Field(
        default_factory=list, alias="environmentVariables", max_length=100
    )


class WireRepository(_Wire):
    url: str = Field(default="", max_length=2_000)
    source: str = Field(default="", max_length=100)


class WireServer(_Wire):
    name: str = Field(min_length=3, max_length=200, pattern=r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
    description: str = Field(default="", max_length=2_000)
    title: str = Field(default="", max_length=200)
    version: str = Field(default="", max_length=255)
    website_url: str = Field(default="", alias="websiteUrl", max_length=2_000)
    repository: WireRepository | None = None
    packages: list[WirePackage] = Field(default_factory=list, max_length=50)
    remotes: list[WireTransport] = Field(default_factory=list, max_length=50)


class WireOfficial(_Wire):
    status: str = "active"
    is_latest: bool = Field(default=True, alias="isLatest")
    updated_at: str = Field(default="", alias="updatedAt")


class WireEntry(_Wire):
    """One item of a list response (also a single-version response)."""

    server: WireServer
    meta: dict[str, object] = Field(default_factory=dict, alias="_meta")

    @property
    def official(self) -> WireOfficial:
        raw = self.meta.get(OFFICIAL_META)
        try:
            return WireOfficial.model_validate(raw) if isinstance(raw, dict) else WireOfficial()
        except ValueError:
            return WireOfficial()

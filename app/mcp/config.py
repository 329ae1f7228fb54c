"""Typed MCP server entries, shared by the catalogs, connections and the API layer.

An entry never holds a secret value: header values, secret env values and OAuth tokens live
in the keyring under `secret_name(...)`; `Resolved` (built only right before a connection)
is the one place where they are joined with the entry.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.support import launch_env

Transport = Literal["stdio", "sse", "http"]
Source = Literal["builtin", "user"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "sse", "http")

# A new server's name: lowercase, as the tool names derived from it (`mcp_<server>_<tool>`).
# Entries stored before that rule may be mixed-case: NAME_RE still reads and edits them.
NEW_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
MAX_DISPLAY_NAME = 100
_HEADER_RE = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,100}$")
# Variables that change which code a program loads (named in every confirmation prompt) and
# names that carry credentials: the app's one rule for both (app/support/launch_env.py).
LOADER_ENV = launch_env.LOADER_ENV
SECRET_ENV_HINT = launch_env.SECRET_NAME


class ConfigError(ValueError):
    """An entry is invalid; the message says what to fix."""


class NameTaken(ConfigError):
    """A new server's name is in use (compared without case): the API answers `conflict`."""


@dataclass(frozen=True)
class Launch:
    """How the app starts a built-in HTTP/SSE server on demand (`${port}` is filled in)."""

    command: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class ServerEntry:
    name: str
    transport: Transport
    source: Source
    display_name: str = ""
    description: str = ""
    url: str = ""  # http/sse
    header_names: tuple[str, ...] = ()  # values: keyring
    command: str = ""  # stdio
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # plain values only
    secret_env: tuple[str, ...] = ()  # values: keyring
    confirmed_launch: str | None = None  # stdio: `launch_id()` of what the user confirmed
    launch: Launch | None = None  # built-in HTTP/SSE only
    # stdio: run the server confined by the Landlock sandbox (app/mcp/sandboxed.py), TCP only
    # when `network` (Landlock filters TCP by port, not by host). Default on for servers installed
    # from the catalog, a bundle or the Registry; off for ones the user adds (decision 365).
    sandbox: bool = False
    network: bool = False

    @property
    def argv(self) -> tuple[str, ...]:
        return (self.command, *self.args) if self.transport == "stdio" else ()

    @property
    def needs_confirmation(self) -> bool:
        """A user stdio entry runs a program: its whole launch spec must be confirmed first."""
        stdio = self.source == "user" and self.transport == "stdio"
        return stdio and self.confirmed_launch != self.launch_id()

    def launch_id(self) -> str:
        """Everything that decides what a stdio launch runs: argv, the plain env values, the
        secret env names (their values are the user's own keyring entries). The child runs in
        the app's working folder; entries have no cwd of their own. Any change here asks again:
        `PATH`, `LD_PRELOAD` or `NODE_OPTIONS` change the program as much as argv does."""
        data = {
            "argv": list(self.argv),
            "env": sorted(self.env.items()),
            "secret_env": sorted(self.secret_env),
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def loader_env(self) -> list[str]:
        """Names of variables set for the launch that change which code is loaded."""
        return launch_env.loader_names((*self.env, *self.secret_env))

    def launch_summary(self) -> str:
        """The launch spec as one line for a confirmation prompt (secret values masked)."""
        env = [f"{k}={v}" for k, v in sorted(self.env.items())]
        env += [f"{k}=********" for k in sorted(self.secret_env)]
        line = " ".join(self.argv)
        if env:
            line += "  with env " + " ".join(env)
        loaders = self.loader_env()
        if loaders:
            line += f"  — WARNING: {', '.join(loaders)} change which code the program loads"
        return line

    def fingerprint(self) -> str:
        """Changes whenever what we connect to changes (schema cache invalidation). No secret
        values go in, only names."""
        data = {
            "t": self.transport,
            "u": self.url,
            "h": sorted(self.header_names),
            "c": self.command,
            "a": list(self.args),
            "e": sorted(self.env.items()),
            "s": sorted(self.secret_env),
            "l": [self.launch.command, *self.launch.args] if self.launch else None,
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]

    @property
    def sandboxed(self) -> bool:
        return self.transport == "stdio" and self.sandbox


@dataclass(frozen=True)
class Resolved:
    """An entry with its secrets, right before connecting. Never logged, never returned."""

    entry: ServerEntry
    headers: Mapping[str, str]
    env: Mapping[str, str]
    # The URL to connect to: the stored one with its credential query values put back.
    url: str = ""
    query_secrets: Sequence[str] = ()

    @property
    def target_url(self) -> str:
        return self.url or self.entry.url

    def secret_values(self) -> list[str]:
        secret_env = {k: v for k, v in self.env.items() if k in self.entry.secret_env}
        return [*self.headers.values(), *secret_env.values(), *self.query_secrets]


def secret_name(server: str, kind: Literal["header", "env", "oauth", "query"], key: str) -> str:
    return f"mcp:{server}:{kind}:{key}"


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise ConfigError(
            f"invalid server name {name[:60]!r}: use 1-48 letters, digits, '_' or '-', starting "
            "with a letter or digit"
        )
    return name


def check_new_name(name: str) -> str:
    """The rule for a server created now (API, import, Market): see NEW_NAME_RE."""
    if not NEW_NAME_RE.fullmatch(name):
        raise ConfigError(
            f"invalid server name {name[:60]!r}: use 1-48 lowercase letters, digits, '_' or '-', "
            "starting with a letter or digit (the names of its tools are made from it)"
        )
    return name


def check_display_name(value: str) -> str:
    """1-100 characters once trimmed; "" means "show the name"."""
    shown = value.strip()
    if len(shown) > MAX_DISPLAY_NAME:
        raise ConfigError(f"the display name is too long (at most {MAX_DISPLAY_NAME} characters)")
    return shown


def check_header(name: str) -> str:
    if not _HEADER_RE.fullmatch(name):
        raise ConfigError(f"invalid header name {name[:60]!r}")
    return name


def check_env(name: str) -> str:
    if not _ENV_RE.fullmatch(name):
        raise ConfigError(f"invalid environment variable name {name[:60]!r}")
    return name


def check_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"the URL must be http(s)://host/…, got {url[:120]!r}")
    if parts.username or parts.password:
        raise ConfigError("put credentials in a header, not in the URL")
    return url


def check_transport(value: str) -> Transport:
    aliases = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http"}
    value = aliases.get(value, value)
    if value not in TRANSPORTS:
        raise ConfigError(f"unknown transport {value[:40]!r}: use one of stdio, sse, http")
    return value  # type: ignore[return-value,unused-ignore]

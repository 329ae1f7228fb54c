"""What a registry entry offers the user (its packages and remotes, each an install option with
the inputs it asks for) and, from the user's values, what the MCP server entry runs or reaches.

Inputs are keyed by what the entry declares: an environment variable's or header's name, an
argument's `valueHint` (or a named argument's flag without dashes), a `{variable}`'s name.
Values the entry fixes (`value`) are not asked for. A secret environment variable or header
goes to the keyring (app/mcp stores them there); a secret on the command line would be kept
in plain text, so such an option is not offered (decision 224).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from app.mcp_catalog.models import VERSION_RE, CatalogEntry
from app.mcp_catalog.registry_models import (
    WireArgument,
    WireEntry,
    WireInput,
    WireKeyValue,
    WirePackage,
    WireTransport,
)
from app.support.launch_env import is_loader_env, is_secret_name, loader_names

Target = Literal["env", "arg", "header", "variable"]
MAX_VALUE = 4_000
_VAR = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,100})\}")
_PKG_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")
REMOTE_TRANSPORTS = {"streamable-http": "http", "sse": "sse"}


class RegistryInputError(ValueError):
    """A value is missing or invalid; the message names the input. `missing`: the key of a
    required input with no value (the CLI then says how to give it; the Market has a field)."""

    def __init__(self, message: str, *, missing: str = "") -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class Input:
    key: str
    target: Target
    description: str
    required: bool
    secret: bool
    default: str
    choices: tuple[str, ...]
    placeholder: str
    repeated: bool
    format: str


@dataclass(frozen=True)
class Option:
    index: int
    kind: Literal["package", "remote"]
    registry: str  # npm, pypi, oci, … ("" for a remote)
    identifier: str
    version: str
    transport: str  # stdio, streamable-http, sse
    url: str
    problem: str  # "" = it can be installed here
    inputs: tuple[Input, ...]
    package: WirePackage | None = None
    remote: WireTransport | None = None


@dataclass(frozen=True)
class RenderedPackage:
    args: tuple[str, ...]
    env: dict[str, str]
    secret_env: dict[str, str]


@dataclass(frozen=True)
class RenderedRemote:
    transport: str  # http | sse (app/mcp's names)
    url: str
    headers: dict[str, str]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:48].strip("-")


def server_id(name: str, reserved: Collection[str] = ()) -> str:
    """The MCP server entry's name: the registry name's last part, made a valid name
    (`io.github.acme/Weather_Tools` -> `weather-tools`). A name the curated catalog uses
    (`reserved`: `memory`, `time`) is never taken: it keeps its namespace's last label
    (`io.github.acme/memory` -> `acme-memory`), else the whole namespace (decision 282)."""
    namespace, _, tail = name.rpartition("/")
    slug = _slug(tail) or "registry-server"
    if slug not in reserved:
        return slug
    for prefix in (namespace.rsplit(".", 1)[-1], namespace):
        candidate = _slug(f"{prefix}-{slug}")
        if candidate and candidate not in reserved:
            return candidate
    return _slug(f"registry-{namespace}-{slug}")


def is_secret_kv(kv: WireInput, name: str) -> bool:
    """A variable's or header's value is secret when the entry says so or its name does (the
    app's one rule, decision 280); a loader variable never is (its value decides what runs)."""
    named = is_secret_name(name) or name.lower() in ("authorization", "proxy-authorization")
    return (kv.is_secret or named) and not is_loader_env(name)


def _input(item: WireInput, key: str, target: Target, *, repeated: bool = False) -> Input:
    secret = is_secret_kv(item, key) if target in ("env", "header") else item.is_secret
    return Input(
        key=key,
        target=target,
        description=item.description,
        required=item.is_required,
        secret=secret,
        default=item.default or "",
        choices=tuple(item.choices),
        placeholder=item.placeholder,
        repeated=repeated,
        format=item.format,
    )


def _arg_key(arg: WireArgument, n: int) -> str:
    return arg.value_hint or arg.name.lstrip("-") or f"arg{n + 1}"


def _package_inputs(pkg: WirePackage) -> list[Input]:
    found: list[Input] = []
    for n, arg in enumerate(pkg.package_arguments):
        if arg.value is None:
            found.append(_input(arg, _arg_key(arg, n), "arg", repeated=arg.is_repeated))
        found += [_input(v, k, "variable") for k, v in arg.variables.items()]
    for kv in pkg.environment_variables:
        if kv.value is None:
            found.append(_input(kv, kv.name, "env"))
        found += [_input(v, k, "variable") for k, v in kv.variables.items()]
    return _unique(found)


def _remote_inputs(remote: WireTransport) -> list[Input]:
    found = [_input(v, k, "variable") for k, v in remote.variables.items()]
    for kv in remote.headers:
        if kv.value is None:
            found.append(_input(kv, kv.name, "header"))
        found += [_input(v, k, "variable") for k, v in kv.variables.items()]
    return _unique(found)


def _unique(items: list[Input]) -> list[Input]:
    seen: dict[str, Input] = {}
    for item in items:
        seen.setdefault(item.key, item)  # the same {variable} used twice is asked once
    return list(seen.values())


def _package_problem(pkg: WirePackage, version: str, inputs: Sequence[Input]) -> str:
    if pkg.registry_type == "mcpb":  # a bundle: its manifest declares the command and settings
        from app.mcp_catalog.registry_bundle import bundle_problem

        if pkg.package_arguments or pkg.environment_variables:
            return "an mcpb package takes its settings from its bundle; this entry also declares others"
        return bundle_problem(pkg.identifier, pkg.file_sha256)
    if pkg.registry_type not in ("npm", "pypi"):
        return f"{pkg.registry_type} packages are not supported here (only npm, PyPI and MCP bundles)"
    if pkg.transport.type != "stdio":
        return f"this package runs as a local {pkg.transport.type} server; only stdio packages are supported"
    if not _PKG_NAME.fullmatch(pkg.identifier):
        return f"{pkg.identifier[:100]!r} is not a package name"
    if not version or re.fullmatch(VERSION_RE, version) is None:
        return f"no exact version to pin ({version[:40]!r})"
    if any(i.secret and i.target in ("arg", "variable") for i in inputs):
        return "it takes a secret on its command line, where it would be kept in plain text"
    return ""


def options(entry: WireEntry) -> list[Option]:
    server = entry.server
    out: list[Option] = []
    for pkg in server.packages:
        version = pkg.version or server.version
        inputs = _package_inputs(pkg)
        out.append(
            Option(
                index=len(out),
                kind="package",
                registry=pkg.registry_type,
                identifier=pkg.identifier,
                version=version,
                transport=pkg.transport.type,
                url="",
                problem=_package_problem(pkg, version, inputs),
                inputs=tuple(inputs),
                package=pkg,
            )
        )
    for remote in server.remotes:
        problem = ""
        if remote.type not in REMOTE_TRANSPORTS:
            problem = f"the {remote.type[:40]} transport is not supported (only streamable-http and sse)"
        elif not (remote.url.startswith(("http://", "https://")) or remote.url.startswith("{")):
            problem = "its URL is not http(s)"
        out.append(
            Option(
                index=len(out),
                kind="remote",
                registry="",
                identifier="",
                version=server.version,
                transport=remote.type,
                url=remote.url,
                problem=problem,
                inputs=tuple(_remote_inputs(remote)),
                remote=remote,
            )
        )
    return out


def check_values(option: Option, given: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Every input's values (defaults filled in). Unknown keys, missing required values,
    values outside `choices` and multi-line values are refused."""
    known = {i.key: i for i in option.inputs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        choices = ", ".join(known) or "none"
        raise RegistryInputError(f"this server has no input {unknown[0]!r} (its inputs: {choices})")
    out: dict[str, list[str]] = {}
    for key, item in known.items():
        values = [v for v in given.get(key, ()) if v != ""]
        if not values and item.default:
            values = [item.default]
        if item.required and not values:
            raise RegistryInputError(f"the input {key!r} is required ({item.description[:120]})", missing=key)
        if len(values) > 1 and not item.repeated:
            raise RegistryInputError(f"the input {key!r} takes one value")
        for value in values:
            if len(value) > MAX_VALUE or any(c in value for c in "\n\r\0"):
                raise RegistryInputError(
                    f"the value of {key!r} must be one line of at most {MAX_VALUE} characters"
                )
            if item.choices and value not in item.choices:
                raise RegistryInputError(f"the input {key!r} must be one of: {', '.join(item.choices)}")
            if item.format == "number" and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value) is None:
                raise RegistryInputError(f"the input {key!r} must be a number")
            if item.format == "boolean" and value not in ("true", "false"):
                raise RegistryInputError(f"the input {key!r} must be true or false")
        out[key] = values
    return out


def _fill(template: str, values: Mapping[str, Sequence[str]]) -> str | None:
    """`{name}` replaced by its value; None if a name it uses has no value. A name the entry
    does not declare stays as it is (the published rule)."""
    missing = False

    def one(m: re.Match[str]) -> str:
        nonlocal missing
        if m.group(1) not in values:
            return m.group(0)
        got = values[m.group(1)]
        if not got:
            missing = True
            return ""
        return got[0]

    filled = _VAR.sub(one, template)
    return None if missing else filled


def _kv_value(kv: WireKeyValue, values: Mapping[str, Sequence[str]]) -> str | None:
    """A fixed value filled in, or the user's; None: leave the variable or header out."""
    if kv.value is not None:
        return _fill(kv.value, values)
    given = values.get(kv.name)
    return given[0] if given else None


def render_package(option: Option, values: Mapping[str, Sequence[str]]) -> RenderedPackage:
    assert option.package is not None
    args: list[str] = []
    for n, arg in enumerate(option.package.package_arguments):
        if arg.value is not None:
            filled = _fill(arg.value, values)
            given = [filled] if filled is not None else []
        else:
            given = list(values.get(_arg_key(arg, n), ()))
        for value in given:
            args.extend([arg.name, value] if arg.type == "named" and arg.name else [value])
    env: dict[str, str] = {}
    secret_env: dict[str, str] = {}
    for kv in option.package.environment_variables:
        got = _kv_value(kv, values)
        if got is not None:
            (secret_env if is_secret_kv(kv, kv.name) else env)[kv.name] = got
    return RenderedPackage(tuple(args), env, secret_env)


def render_remote(option: Option, values: Mapping[str, Sequence[str]]) -> RenderedRemote:
    assert option.remote is not None
    url = _fill(option.remote.url, values)
    if url is None or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise RegistryInputError(
            f"the server's URL is not a valid http(s) URL once filled in: {(url or '')[:200]!r}"
        )
    headers: dict[str, str] = {}
    for kv in option.remote.headers:
        value = _kv_value(kv, values)
        if value is not None:
            headers[kv.name] = value
    return RenderedRemote(REMOTE_TRANSPORTS[option.transport], url, headers)


def catalog_entry(entry: WireEntry, option: Option, sid: str) -> CatalogEntry:
    """The installer's view of a package option (app/mcp_catalog/installer.py): uvx's and
    npx's convention names the program after the package (npm: its only `bin` if it has one)."""
    assert option.package is not None
    title = (entry.server.title or entry.server.name)[:400]
    description = (entry.server.description or entry.server.name)[:400]
    program = option.identifier.rsplit("/", 1)[-1]
    return CatalogEntry.model_validate(
        {
            "id": sid,
            "title": {"en": title, "zh-CN": title},
            "description": {"en": description, "zh-CN": description},
            "transport": "stdio",
            "package": {
                "registry": option.registry,
                "name": option.identifier,
                "version": option.version,
                "bin": program,
            },
            "read_only": False,
        }
    )


MASK = "********"


@dataclass(frozen=True)
class Launch:
    """Exactly what an install writes, as shown before it: the pinned package (or the URL) and
    every argument and variable, secret values masked. `digest` is what the install must present:
    it covers the entry's name and version, the chosen option as the registry described it
    (package, version, hash, fixed values) and everything shown (issue 33 items 2 and 5)."""

    kind: Literal["package", "remote"]
    registry: str
    identifier: str
    version: str
    file_sha256: str
    argv: tuple[str, ...]  # the program as it will be after the install, then the arguments
    env: dict[str, str]  # secret values masked
    loader_env: tuple[str, ...]
    url: str
    transport: str
    headers: dict[str, str]  # secret values masked
    secret_headers: tuple[str, ...]  # headers the entry marks secret
    digest: str


def _launch_digest(entry: WireEntry, option: Option, shown: Mapping[str, object]) -> str:
    wire = option.package if option.package is not None else option.remote
    data = {
        "name": entry.server.name,
        "version": entry.server.version,
        "option": option.index,
        "wire": wire.model_dump(mode="json", by_alias=True) if wire is not None else None,
        "shown": shown,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def package_launch(
    entry: WireEntry, option: Option, rendered: RenderedPackage, program: Sequence[str]
) -> Launch:
    assert option.package is not None
    env = {**rendered.env, **dict.fromkeys(rendered.secret_env, MASK)}
    argv = (*program, *rendered.args)
    shown = {"argv": list(argv), "env": sorted(env.items()), "registry": option.registry}
    return Launch(
        kind="package",
        registry=option.registry,
        identifier=option.identifier,
        version=option.version,
        file_sha256=option.package.file_sha256,
        argv=argv,
        env=env,
        loader_env=tuple(loader_names(env)),
        url="",
        transport=option.transport,
        headers={},
        secret_headers=(),
        digest=_launch_digest(entry, option, shown),
    )


def bundle_launch(
    entry: WireEntry, option: Option, argv: Sequence[str], env: Mapping[str, str], loaders: Sequence[str]
) -> Launch:
    """An `mcpb` package's launch, from its downloaded bundle's preview (secrets masked)."""
    assert option.package is not None
    shown = {"argv": list(argv), "env": sorted(env.items()), "registry": "mcpb"}
    return Launch(
        kind="package",
        registry="mcpb",
        identifier=option.identifier,
        version=option.version,
        file_sha256=option.package.file_sha256.lower(),
        argv=tuple(argv),
        env=dict(env),
        loader_env=tuple(loaders),
        url="",
        transport=option.transport,
        headers={},
        secret_headers=(),
        digest=_launch_digest(entry, option, shown),
    )


def remote_launch(entry: WireEntry, option: Option, rendered: RenderedRemote) -> Launch:
    assert option.remote is not None
    secret = {kv.name for kv in option.remote.headers if is_secret_kv(kv, kv.name)}
    headers = {k: MASK if k in secret else v for k, v in rendered.headers.items()}
    shown = {"url": rendered.url, "headers": sorted(headers.items()), "transport": rendered.transport}
    return Launch(
        kind="remote",
        registry="",
        identifier="",
        version=option.version,
        file_sha256="",
        argv=(),
        env={},
        loader_env=(),
        url=rendered.url,
        transport=option.transport,
        headers=headers,
        secret_headers=tuple(sorted(secret & set(headers))),
        digest=_launch_digest(entry, option, shown),
    )

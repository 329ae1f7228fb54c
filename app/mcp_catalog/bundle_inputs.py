"""A bundle's `user_config` values (checked) and its `mcp_config` with the spec's variables filled
in: `${__dirname}`, `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}`, `${pathSeparator}`,
`${/}` and `${user_config.KEY}` (an argument that is exactly a multi-valued option becomes one
argument per value)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.contracts.errors import say
from app.mcp_catalog.bundle_manifest import USER_TOKEN, Manifest, McpConfig, UserConfigOption

MAX_VALUE = 4_000
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


class BundleInputError(ValueError):
    """A user_config value is missing or invalid; the message names the option."""


@dataclass(frozen=True)
class SystemDirs:
    home: Path

    def variables(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "DESKTOP": str(self.home / "Desktop"),
            "DOCUMENTS": str(self.home / "Documents"),
            "DOWNLOADS": str(self.home / "Downloads"),
            "pathSeparator": os.sep,
            "/": os.sep,
        }


@dataclass(frozen=True)
class RenderedConfig:
    command: str
    args: tuple[str, ...]
    env: dict[str, str]  # not secret: stored in servers.json
    secret_env: dict[str, str]  # variable -> value, for the keyring only


def _fill(text: str, variables: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def default_values(option: UserConfigOption, dirs: SystemDirs) -> list[str]:
    """The option's default as form values (variables filled in)."""
    raw = option.default
    if raw is None:
        return []
    if isinstance(raw, bool):
        return ["true" if raw else "false"]
    if isinstance(raw, float | int):
        return [_number_text(float(raw))]
    items = raw if isinstance(raw, list) else [raw]
    return [_fill(v, dirs.variables()) for v in items if v != ""]


def _number_text(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def check_values(
    manifest: Manifest, given: Mapping[str, Sequence[str]], dirs: SystemDirs
) -> dict[str, list[str]]:
    """Every option's values (defaults filled in). Unknown keys, missing required values,
    folders that do not exist and multi-line values are refused."""
    options = manifest.user_config
    unknown = sorted(set(given) - set(options))
    if unknown:
        choices = ", ".join(options) or "none"
        raise BundleInputError(say("bundle_input.unknown", option=repr(unknown[0][:60]), choices=choices))
    out: dict[str, list[str]] = {}
    for key, option in options.items():
        values = [v for v in given.get(key, ()) if v != ""]
        if not values:
            values = default_values(option, dirs)
        if option.required and not values:
            raise BundleInputError(
                say("bundle_input.required", option=repr(key), name=key, title=option.title)
            )
        if len(values) > 1 and not option.multiple:
            raise BundleInputError(say("bundle_input.one_value", option=repr(key)))
        out[key] = [_check_one(key, option, v) for v in values]
    return out


def _check_one(key: str, option: UserConfigOption, value: str) -> str:
    if len(value) > MAX_VALUE or "\n" in value or "\r" in value or "\0" in value:
        raise BundleInputError(say("bundle_input.one_line", option=repr(key), max=MAX_VALUE))
    if option.type == "boolean":
        word = value.strip().lower()
        if word not in _TRUE + _FALSE:
            raise BundleInputError(say("bundle_input.boolean", option=repr(key), value=repr(value[:40])))
        return "true" if word in _TRUE else "false"
    if option.type == "number":
        try:
            number = float(value)
        except ValueError:
            raise BundleInputError(
                say("bundle_input.number", option=repr(key), value=repr(value[:40]))
            ) from None
        if not math.isfinite(number):
            raise BundleInputError(say("bundle_input.number", option=repr(key), value=repr(value[:40])))
        if option.min is not None and number < option.min:
            raise BundleInputError(say("bundle_input.min", option=repr(key), min=_number_text(option.min)))
        if option.max is not None and number > option.max:
            raise BundleInputError(say("bundle_input.max", option=repr(key), max=_number_text(option.max)))
        return _number_text(number)
    if option.type in ("directory", "file"):
        path = Path(value).expanduser()
        if not path.is_absolute():
            raise BundleInputError(say("bundle_input.absolute", option=repr(key), value=repr(value[:200])))
        if option.type == "directory" and not path.is_dir():
            raise BundleInputError(say("bundle_input.no_folder", option=repr(key), value=repr(value[:200])))
        return str(path)
    return value


def render(
    manifest: Manifest, config: McpConfig, folder: Path, values: Mapping[str, Sequence[str]], dirs: SystemDirs
) -> RenderedConfig:
    """The command line and environment with every variable filled in. An argument that names
    an empty option is left out; an environment variable that does is not set."""
    base = {"__dirname": str(folder), **dirs.variables()}
    single = {f"user_config.{k}": (v[0] if v else "") for k, v in values.items()}
    variables = {**base, **single}
    args: list[str] = []
    for arg in config.args:
        whole = USER_TOKEN.fullmatch(arg)
        if whole is not None:
            args.extend(values.get(whole.group(1), ()))
            continue
        if any(not values.get(k) for k in USER_TOKEN.findall(arg)):
            continue
        args.append(_fill(arg, variables))
    env: dict[str, str] = {}
    secret_env: dict[str, str] = {}
    for name, template in config.env.items():
        keys = USER_TOKEN.findall(template)
        if any(not values.get(k) for k in keys):
            continue
        value = _fill(template, variables)
        if any(manifest.user_config[k].sensitive for k in keys):
            secret_env[name] = value
        else:
            env[name] = value
    return RenderedConfig(_fill(config.command, variables), tuple(args), env, secret_env)

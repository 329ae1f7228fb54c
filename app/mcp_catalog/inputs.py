"""A catalog entry's inputs: checked values, then the server's argv and environment from them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.mcp_catalog.models import INPUT_TOKEN, CatalogEntry, CatalogInput

MAX_VALUE = 4_000


def missing_details(exc: Exception) -> dict[str, str]:
    """The API error's details for a required input left empty (`missing_input`: its key), so
    a client can say how to give it in its own terms (the CLI: `--input KEY=VALUE`)."""
    missing = getattr(exc, "missing", "")
    return {"missing_input": missing} if missing else {}


class InputError(ValueError):
    """An input is missing or invalid; the message names it. `missing`: the key of a required
    input with no value (the CLI then says how to give it; the Market has a field)."""

    def __init__(self, message: str, *, missing: str = "") -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class Places:
    """What `${home}`, `${workspace}` and `${data}` mean in an input's default."""

    home: Path
    workspace: Path
    data: Path  # the server's own data folder (kept when the server is removed)


@dataclass(frozen=True)
class Rendered:
    args: tuple[str, ...]
    env: dict[str, str]
    secret_env: dict[str, str]  # variable -> value, for the keyring only


def default_of(item: CatalogInput, places: Places) -> str:
    return (
        item.default.replace("${home}", str(places.home))
        .replace("${workspace}", str(places.workspace))
        .replace("${data}", str(places.data))
    )


def check_inputs(
    entry: CatalogEntry, given: Mapping[str, Sequence[str]], places: Places
) -> dict[str, list[str]]:
    """Every input's values (defaults filled in). Unknown keys, missing required values,
    folders that do not exist and multi-line values are refused."""
    known = {i.key: i for i in entry.inputs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        choices = ", ".join(known) or "none"
        raise InputError(f"{entry.id} has no input {unknown[0]!r} (its inputs: {choices})")
    out: dict[str, list[str]] = {}
    for key, item in known.items():
        values = [v for v in given.get(key, ()) if v != ""]
        if not values and item.default:
            values = [default_of(item, places)]
        if item.required and not values:
            raise InputError(f"{entry.id} needs the input {key!r} ({item.title.en})", missing=key)
        if len(values) > 1 and item.kind != "folders":
            raise InputError(f"the input {key!r} takes one value")
        for value in values:
            if len(value) > MAX_VALUE or "\n" in value or "\r" in value or "\0" in value:
                raise InputError(f"the value of {key!r} must be one line of at most {MAX_VALUE} characters")
            if item.kind in ("folder", "folders", "file"):
                path = Path(value).expanduser()
                if not path.is_absolute():
                    raise InputError(f"the input {key!r} must be an absolute path, got {value[:200]!r}")
                if item.kind != "file" and not path.is_dir():
                    raise InputError(f"the folder {value[:200]!r} of {key!r} does not exist")
        if item.kind in ("folder", "folders", "file"):
            values = [str(Path(v).expanduser()) for v in values]
        out[key] = values
    return out


def render(entry: CatalogEntry, values: Mapping[str, Sequence[str]]) -> Rendered:
    """The arguments after the entry point and the environment. An argument group that names
    an empty input is left out; a `folders` token expands to one argument per folder."""
    args: list[str] = []
    for group in entry.args:
        if any(not values.get(k) for arg in group for k in INPUT_TOKEN.findall(arg)):
            continue
        for arg in group:
            whole = INPUT_TOKEN.fullmatch(arg)
            if whole is not None:
                args.extend(values[whole.group(1)])
            else:
                args.append(INPUT_TOKEN.sub(lambda m: values[m.group(1)][0], arg))
    env: dict[str, str] = {}
    for name, template in entry.env.items():
        keys = INPUT_TOKEN.findall(template)
        if all(values.get(k) for k in keys):
            env[name] = INPUT_TOKEN.sub(lambda m: values[m.group(1)][0], template)
    secret_env = {
        i.env: values[i.key][0] for i in entry.inputs if i.kind == "secret" and i.env and values.get(i.key)
    }
    return Rendered(tuple(args), env, secret_env)

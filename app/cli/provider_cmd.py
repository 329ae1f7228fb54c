"""`cashcode config provider add|set|list`: save a provider from the terminal (issues 34, 41).

Everything goes through the same routes as Settings → Providers (providers.save, settings.update),
so the same checks apply. The API key is read from a prompt (a terminal) or from stdin (a pipe),
never from the command line, where other users and the shell history would see it.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from typing import TYPE_CHECKING, Any

from app.cli.runtime import fail

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

ALL_MODELS = "*"
_CLEAR = ("none", "default", "")


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("provider", help="add, change or list saved providers")
    sub = parser.add_subparsers(dest="provider_command", required=True)
    add = sub.add_parser(
        "add", help="save a new provider; its API key is read from the prompt or stdin (never a flag)"
    )
    add.add_argument("--name", required=True)
    add.add_argument("--kind", required=True, choices=["chat_completions", "responses", "ollama"])
    add.add_argument("--base-url", required=True)
    add.add_argument("--no-key", action="store_true", help="save without an API key (local servers)")
    _limit_flags(add, model_help="the provider's default model")
    add.set_defaults(func=_runner(_add))
    change = sub.add_parser("set", help="change a saved provider's timeouts and model settings")
    change.add_argument("provider", help="the provider's id or name")
    change.add_argument("--key", action="store_true", help="replace the API key (prompt or stdin)")
    change.add_argument("--default-model", help="the model the terminal uses when none is chosen")
    change.add_argument("--vision", action=argparse.BooleanOptionalAction, help="the --model can see images")
    _limit_flags(change, model_help="which model the settings below are for (default: every model, *)")
    change.set_defaults(func=_runner(_set))
    listing = sub.add_parser("list", help="list saved providers and their settings (never the key)")
    listing.set_defaults(func=_runner(_list))


def _limit_flags(parser: argparse.ArgumentParser, *, model_help: str) -> None:
    parser.add_argument("--model", help=model_help)
    parser.add_argument(
        "--timeout", metavar="SECONDS", help="how long a call may wait (default 60; none: default)"
    )
    parser.add_argument(
        "--first-token-timeout", metavar="SECONDS", help="from the server's headers to the first answer token"
    )
    parser.add_argument("--temperature", metavar="T", help="0–2 (none: the server's default)")
    parser.add_argument("--max-tokens", metavar="N", help="max output tokens per model call")
    parser.add_argument("--context-length", metavar="N", help="the model's context window in tokens")
    parser.add_argument(
        "--parallel-requests",
        metavar="N",
        help="model calls at once (0: no limit; default: 1 for a local server, no limit otherwise)",
    )
    parser.add_argument(
        "--lean-tools",
        choices=["on", "off", "default"],
        help="send core tools only and let the model find the rest (default: on for a local server)",
    )


def _runner(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            return int(asyncio.run(_with_app(fn, args)))
        except ValueError as exc:
            return fail(str(exc))

    return run


async def _with_app(fn: Any, args: argparse.Namespace) -> int:
    from app.cli.runtime import open_plain_app

    app = open_plain_app(os.environ)
    try:
        return int(await fn(app, args))
    finally:
        await app.aclose()


def _number(value: str | None, flag: str, kind: type[float] | type[int]) -> tuple[bool, float | int | None]:
    """(given, value): a flag left out is not given; "none" clears the setting."""
    if value is None:
        return False, None
    if value.strip().lower() in _CLEAR:
        return True, None
    try:
        return True, kind(value)
    except ValueError:
        raise ValueError(f"{flag} takes a number (or none), got {value!r}") from None


def _read_key() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("API key (empty for none): ").strip()
    return sys.stdin.readline().strip()


def _model_entry(entries: list[dict[str, Any]], model: str) -> dict[str, Any]:
    for entry in entries:
        if entry["model"] == model:
            return entry
    entry = {"model": model}
    entries.append(entry)
    return entry


def _dest(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def _apply_limits(payload: dict[str, Any], args: argparse.Namespace, model: str) -> None:
    for flag, field in (("--timeout", "timeout_s"), ("--first-token-timeout", "first_token_timeout_s")):
        given, value = _number(getattr(args, _dest(flag)), flag, float)
        if given:
            payload[field] = value
    # Provider-wide, like the timeouts: left out, providers.save keeps the stored value.
    given, value = _number(args.parallel_requests, "--parallel-requests", int)
    if given:
        payload["parallel_requests"] = value
    if args.lean_tools is not None:
        payload["lean_tools"] = {"on": True, "off": False}.get(args.lean_tools)
    entries: list[dict[str, Any]] = payload.setdefault("model_settings", [])
    numbers: tuple[tuple[str, str, type[float] | type[int]], ...] = (
        ("--temperature", "temperature", float),
        ("--max-tokens", "max_output_tokens", int),
        ("--context-length", "context_length", int),
    )
    for flag, field, kind in numbers:
        given, value = _number(getattr(args, _dest(flag)), flag, kind)
        if given:
            _model_entry(entries, model)[field] = value
    # An entry with nothing left in it says nothing: drop it.
    payload["model_settings"] = [
        e for e in entries if any(v is not None for k, v in e.items() if k != "model")
    ]


def _error(envelope: dict[str, Any]) -> int:
    error = envelope["error"]
    fields = error.get("fields") or {}
    extra = "; ".join(f"{k}: {v}" for k, v in fields.items())
    return fail(error["message"] + (f" ({extra})" if extra else ""))


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {
        "id": None,
        "name": args.name,
        "kind": args.kind,
        "base_url": args.base_url,
        "api_key": "" if args.no_key else _read_key(),
        "default_model": args.model,
    }
    if await _find(app, args.name) is not None:
        return fail(
            f"a provider named {args.name!r} exists already: change it with `cashcode config provider set`"
        )
    _apply_limits(payload, args, ALL_MODELS)
    envelope = await app.invoke("providers.save", payload)
    if not envelope["ok"]:
        return _error(envelope)
    saved = envelope["data"]
    stored = "key stored" if saved["has_key"] else "no key"
    print(f"Saved provider {saved['name']} (id {saved['id']}, {stored}).")
    return 0


async def _find(app: CashCodeApp, wanted: str) -> dict[str, Any] | None:
    listed = await app.invoke("providers.list", {})
    providers: list[dict[str, Any]] = listed["data"]["providers"]
    return next((p for p in providers if p["id"] == wanted), None) or next(
        (p for p in providers if p["name"] == wanted), None
    )


async def _set(app: CashCodeApp, args: argparse.Namespace) -> int:
    current = await _find(app, args.provider)
    if current is None:
        return fail(f"no saved provider {args.provider!r} (see `cashcode config provider list`)")
    fields = ("id", "name", "kind", "base_url", "api_key", "timeout_s", "first_token_timeout_s")
    payload = {k: current[k] for k in (*fields, "default_model", "model_settings")}
    if args.key:
        payload["api_key"] = _read_key()
    if args.default_model is not None:
        payload["default_model"] = args.default_model.strip() or None
    _apply_limits(payload, args, args.model or ALL_MODELS)
    envelope = await app.invoke("providers.save", payload)
    if not envelope["ok"]:
        return _error(envelope)
    if args.vision is not None:
        if not args.model:
            return fail("--vision needs --model: it marks one model as able to see images")
        settings = await app.invoke("settings.get", {})
        marks = {k: list(v) for k, v in settings["data"]["vision_models"].items()}
        models = set(marks.get(current["id"], []))
        (models.add if args.vision else models.discard)(args.model)
        marks[current["id"]] = sorted(models)
        updated = await app.invoke("settings.update", {"vision_models": marks})
        if not updated["ok"]:
            return _error(updated)
    print(f"Saved provider {current['name']} (id {current['id']}).")
    return 0


def _describe(p: dict[str, Any], vision: list[str]) -> str:
    lines = [
        f"{p['id']}  {p['name']}  {p['kind']}  {p['base_url']}  key: {'stored' if p['has_key'] else 'none'}"
    ]
    timeout = f"{p['timeout_s']:g} s" if p["timeout_s"] else "60 s (default)"
    first = f"{p['first_token_timeout_s']:g} s" if p["first_token_timeout_s"] else "none"
    lines.append(
        f"  timeout: {timeout}  first-token timeout: {first}  default model: {p['default_model'] or '-'}"
    )
    parallel = p["parallel_requests"]
    at_once = "default" if parallel is None else ("no limit" if parallel == 0 else str(parallel))
    lean = {True: "on", False: "off", None: "default"}[p["lean_tools"]]
    lines.append(f"  parallel requests: {at_once}  lean tools: {lean}")
    for e in p["model_settings"]:
        parts = [
            f"{k}={e[k]:g}"
            for k in ("temperature", "max_output_tokens", "context_length")
            if e[k] is not None
        ]
        lines.append(f"  model {e['model']}: {', '.join(parts)}")
    if vision:
        lines.append(f"  can see images: {', '.join(vision)}")
    return "\n".join(lines)


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("providers.list", {})
    settings = await app.invoke("settings.get", {})
    providers = listed["data"]["providers"]
    if not providers:
        print("No saved providers. Add one with `cashcode config provider add`.")
        return 0
    vision = settings["data"]["vision_models"]
    print("\n".join(_describe(p, vision.get(p["id"], [])) for p in providers))
    return 0

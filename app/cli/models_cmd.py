"""`cashcode models`: the models the configured provider offers (the model-not-found hint)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from app.cli.runtime import CliError, add_model_flags, fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("models", help="list the models of the configured provider")
    add_model_flags(parser, model=False, turn=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_models(args))


async def _models(args: argparse.Namespace) -> int:
    from app.cli.render import error_line
    from app.cli.runtime import open_session

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))
    try:
        envelope = await session.app.invoke("models.list", {"provider_id": session.model["provider_id"]})
        listed = await session.app.invoke("providers.list", {})
    finally:
        await session.app.aclose()
    saved = {p["id"]: p["name"] for p in listed["data"]["providers"]} if listed["ok"] else {}
    if not envelope["ok"]:
        print(error_line(envelope["error"], session.config), file=sys.stderr)
        return 1
    data = envelope["data"]
    for problem in data["errors"]:
        print(error_line(problem, session.config), file=sys.stderr)
    for entry in data["models"]:
        marks = [
            label
            for key, label in (("supports_tools", "tools"), ("supports_vision", "vision"))
            if entry.get(key)
        ]
        print(entry["model"] + (f"  [{', '.join(marks)}]" if marks else ""))
    if not data["models"] and not data["errors"]:
        where = saved.get(session.config.provider_id or "") or session.config.base_url
        print(
            f"cashcode: error: provider {where} lists no models (its model list is empty). Install or load "
            "a model on the server, or pass --model with a name the server knows.",
            file=sys.stderr,
        )
    return 0 if data["models"] else 1

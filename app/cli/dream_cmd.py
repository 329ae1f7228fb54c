"""`cashcode dream --now`: one Dream run in the foreground, printing what changed."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from app.cli.runtime import CliError, add_model_flags, fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("dream", help="distil new chat history into MEMORY.md")
    parser.add_argument("--now", action="store_true", required=True, help="run once now, in the foreground")
    add_model_flags(parser, turn=False)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from app.cli.runtime import open_session

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))

    async def main() -> int:
        try:
            print("Dreaming…", file=sys.stderr)
            result = await session.app.invoke("dream.run", {"model": session.model})
        finally:
            await session.app.aclose()
        if not result["ok"]:
            from app.cli.memories_cmd import error

            return error(result)
        data = result["data"]
        print(data["message"])
        if data["diff"]:
            sys.stdout.write(data["diff"])
        if data["proposal_id"]:
            print(f"Review it in the Memory view (proposal {data['proposal_id']}).")
        return 1 if data["status"] == "failed" else 0

    return asyncio.run(main())

"""`cashcode chat`: an interactive conversation; every completed turn is stored."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import TYPE_CHECKING

from app.cli.runtime import CliError, add_approval_flag, add_model_flags, fail

if TYPE_CHECKING:
    from app.api.app import CashCodeApp
    from app.cli.line_editor import LineEditor

EXIT_COMMANDS = {"/exit", "/quit"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("chat", help="chat interactively (/exit or Ctrl-D to leave)")
    parser.add_argument("--resume", metavar="ID", help="continue a stored chat")
    add_model_flags(parser)
    add_approval_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_chat(args))


async def _chat(args: argparse.Namespace) -> int:
    from app.cli.render import EXIT_ERROR, EXIT_OK, TerminalTurn, error_line
    from app.cli.runtime import discard_if_empty, open_session
    from app.cli.terminal import StdinLines

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))
    app = session.app
    try:
        chat_id = await _open_chat(app, args.resume)
        if chat_id is None:
            return EXIT_ERROR
        interactive = StdinLines.is_interactive()
        lines = StdinLines()
        editor = _line_editor(app) if interactive and sys.stdout.isatty() else None
        # Approvals need a person: piped input is conversation text, never a "yes".
        turn = TerminalTurn(
            app,
            out=sys.stdout,
            err=sys.stderr,
            stream=session.config.stream,
            stdin=lines if interactive else None,
            on_reply=startup_gc.resume if (startup_gc := getattr(args, "startup_gc", None)) else None,
        )
        while True:
            if editor is not None:
                line = await editor.readline()
            else:
                if interactive:
                    sys.stdout.write("> ")
                    sys.stdout.flush()
                line = await lines.readline()
            if line is None or line.strip() in EXIT_COMMANDS:
                if args.resume is None:
                    await discard_if_empty(app, chat_id)
                return EXIT_OK
            if not line.strip():
                continue
            result = await turn.run(chat_id, line, session.model)
            if result.error is not None:
                print(error_line(result.error, session.config), file=sys.stderr)
    finally:
        await app.aclose()


def _line_editor(app: CashCodeApp) -> LineEditor:
    from app.cli.line_editor import LineEditor

    return LineEditor(app.ctx.paths.data_dir)


async def _open_chat(app: CashCodeApp, resume: str | None) -> str | None:
    """The chat to talk in: a new one, or the stored one to resume (None: reported error)."""
    from app.cli.render import error_line

    if resume is None:
        created = await app.invoke("chats.create", {})
        chat_id: str = created["data"]["id"]
        print(f"New chat {chat_id} (/exit to leave)", file=sys.stderr)
        return chat_id
    found = await app.invoke("chats.get", {"chat_id": resume, "limit": 1000})
    if not found["ok"]:
        print(error_line(found["error"]), file=sys.stderr)
        return None
    detail = found["data"]
    count = sum(1 for m in detail["messages"] if m["role"] in ("user", "assistant") and m["content"])
    title = detail["chat"]["title"] or "untitled"
    print(f"Resumed chat {resume} “{title}” ({count} messages)", file=sys.stderr)
    return resume

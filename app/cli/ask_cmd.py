"""`cashcode ask PROMPT`: one turn, answer on stdout, exit 0 (1 on error, 130 on Ctrl-C)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from app.cli.runtime import CliError, add_approval_flag, add_model_flags, fail


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("ask", help="ask one question and print the answer")
    parser.add_argument("prompt", nargs="+", help="the question (words are joined with spaces)")
    add_model_flags(parser)
    add_approval_flag(parser)
    parser.add_argument("--agent", metavar="NAME", help="the agent to ask (default: default)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_ask(args, " ".join(args.prompt)))


async def _ask(args: argparse.Namespace, prompt: str) -> int:
    from app.cli.render import TerminalTurn, error_line
    from app.cli.runtime import discard_if_empty, open_session
    from app.cli.spinner import Spinner
    from app.cli.terminal import StdinLines

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))
    app = session.app
    chat_id = ""
    code = 1
    try:
        # Lazy: the chat is stored with its first completed turn, so a killed `ask` leaves none.
        new: dict[str, object] = {"lazy": True}
        if args.agent is not None:
            from app.cli.agents_cmd import agent_id

            agent = await agent_id(app, args.agent)
            if isinstance(agent, int):
                return agent
            new["agent_id"] = agent
        chat = await app.invoke("chats.create", new)
        chat_id = chat["data"]["id"]
        stdin = StdinLines() if StdinLines.is_interactive() else None
        startup_gc = getattr(args, "startup_gc", None)  # set by app.cli.main
        turn = TerminalTurn(
            app,
            out=sys.stdout,
            err=sys.stderr,
            stream=session.config.stream,
            stdin=stdin,
            on_reply=startup_gc.resume if startup_gc is not None else None,
            terminal=Spinner.wanted(sys.stdout, sys.stderr),  # spinner, Markdown: a terminal only
        )
        result = await turn.run(chat_id, prompt, session.model)
        if result.error is not None:
            print(error_line(result.error, session.config), file=sys.stderr)
        code = result.code
        return code
    finally:
        # Also on Ctrl-C: stop the turn (kills its commands), then drop the chat if it is empty.
        if code != 0 and chat_id:
            await app.invoke("chat.cancel", {"chat_id": chat_id})
            await discard_if_empty(app, chat_id)
        await app.aclose()

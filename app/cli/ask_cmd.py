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
    parser.add_argument(
        "--wait",
        action="store_true",
        help="with no terminal to ask on, send questions to the Inbox and wait for an answer "
        "(cashcode inbox approve ID from any terminal) instead of denying them",
    )
    parser.add_argument(
        "--wait-timeout",
        metavar="SECONDS",
        type=_positive_seconds,
        default=None,
        help="with --wait: stop the turn when a question has no answer after this long (default: none)",
    )
    parser.set_defaults(func=run)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 10**9:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def run(args: argparse.Namespace) -> int:
    if args.wait_timeout is not None and not args.wait:
        return fail("--wait-timeout needs --wait")
    return asyncio.run(_ask(args, " ".join(args.prompt)))


async def _ask(args: argparse.Namespace, prompt: str) -> int:
    from app.api.inbox import Label
    from app.cli.render import InboxWait, TerminalTurn, error_line
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
            from app.cli.agent_ref import agent_id

            agent = await agent_id(app, args.agent)
            if isinstance(agent, int):
                return agent
            new["agent_id"] = agent
        chat = await app.invoke("chats.create", new)
        chat_id = chat["data"]["id"]
        app.inbox.label(chat_id, Label("cli", "cashcode ask"))  # who asks, in the Inbox
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
            inbox=InboxWait(args.wait_timeout) if args.wait else None,
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

"""`cashcode chat`: an interactive conversation; every completed turn is stored."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from app.cli.runtime import CliError, add_approval_flag, add_model_flags, fail

if TYPE_CHECKING:
    from app.api.app import CashCodeApp
    from app.cli.line_editor import LineEditor
    from app.cli.runtime import Session
    from app.cli.terminal import StdinLines

EXIT_COMMANDS = {"/exit", "/quit"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "chat", help="chat interactively (/help for commands, /exit or Ctrl-D to leave)"
    )
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
        chat_id = await _open_chat(app, args.resume, _model_label(session))
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
        interrupts = Interrupts(app, chat_id) if interactive else None
        with interrupts or contextlib.nullcontext():
            while True:
                line = await _next_line(editor, lines, interactive, interrupts)
                if line is None or line.strip() in EXIT_COMMANDS:
                    if args.resume is None:
                        await discard_if_empty(app, chat_id)
                    await _say_how_to_resume(app, chat_id)
                    return EXIT_OK
                if not line.strip():
                    continue
                if line.strip() in HELP_COMMANDS:
                    print(HELP_TEXT, file=sys.stderr)  # local: never sent to the model
                    continue
                if interrupts is not None:
                    interrupts.turn_started()
                try:
                    result = await turn.run(chat_id, line, session.model)
                finally:
                    if interrupts is not None:
                        interrupts.turn_ended()
                if result.error is not None:
                    print(error_line(result.error, session.config), file=sys.stderr)
    finally:
        await app.aclose()


HELP_COMMANDS = {"/help", "/?"}
HELP_TEXT = """Commands (handled here, never sent to the model):
  /help    show this list
  /exit    leave (also /quit, Ctrl-D, or Ctrl-C twice at an empty prompt)
Ctrl-C while an answer streams stops it and keeps what was answered so far."""


def _model_label(session: Session) -> str:
    cfg = session.config
    provider = cfg.provider_id or urlsplit(cfg.base_url).netloc or cfg.base_url
    return f"{provider} · {cfg.model}"


async def _next_line(
    editor: LineEditor | None, lines: StdinLines, interactive: bool, interrupts: Interrupts | None
) -> str | None:
    """The next line typed; None to leave (end of input, or a second Ctrl-C at the prompt)."""
    if editor is not None:
        while True:
            try:
                return await editor.readline()
            except KeyboardInterrupt:  # the editor reads Ctrl-C as a key, not a signal
                if interrupts is None or interrupts.at_prompt():
                    return None
    if interactive:
        sys.stdout.write("> ")
        sys.stdout.flush()
    if interrupts is None:
        return await lines.readline()
    return await interrupts.read(lines)


async def _say_how_to_resume(app: CashCodeApp, chat_id: str) -> None:
    found = await app.invoke("chats.get", {"chat_id": chat_id, "limit": 1})
    if found["ok"]:
        print(f"Resume this chat with: cashcode chat --resume {chat_id}", file=sys.stderr)


class Interrupts:
    """Ctrl-C in the REPL: while an answer streams it stops that answer (the turn keeps what was
    answered, marked stopped) and the prompt comes back; at the prompt a first Ctrl-C says how
    to leave and a second one leaves. Installed as the loop's SIGINT handler for the session
    (the previous handler is put back after), so Ctrl-C never ends the process mid-turn."""

    def __init__(self, app: CashCodeApp, chat_id: str) -> None:
        self._app = app
        self._chat_id = chat_id
        self._running = False
        self._armed = False  # one Ctrl-C already pressed at the prompt
        self._leave: asyncio.Future[None] | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self._previous: object = None

    def __enter__(self) -> Interrupts:
        self._previous = signal.getsignal(signal.SIGINT)
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *_exc: object) -> None:
        asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]

    def turn_started(self) -> None:
        self._running, self._armed = True, False

    def turn_ended(self) -> None:
        self._running = False

    def at_prompt(self) -> bool:
        """A Ctrl-C at the prompt: True when it is the second one (leave)."""
        if self._armed:
            return True
        self._armed = True
        print("\n(Ctrl-C again or /exit to leave)", file=sys.stderr)
        return False

    async def read(self, lines: StdinLines) -> str | None:
        leave: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._leave = leave
        reading: asyncio.Future[str | None] = asyncio.ensure_future(lines.readline())
        waits: set[asyncio.Future[object]] = {reading, leave}  # type: ignore[arg-type]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._leave = None
        if not reading.done():
            reading.cancel()  # StdinLines keeps what was read for the next call
            return None
        line = reading.result()
        if line is not None and line.strip():
            self._armed = False
        return line

    def _on_sigint(self) -> None:
        if self._running:
            print("\n[stopping the answer]", file=sys.stderr)
            task = asyncio.get_running_loop().create_task(
                self._app.invoke("chat.cancel", {"chat_id": self._chat_id})
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        if self.at_prompt() and self._leave is not None and not self._leave.done():
            self._leave.set_result(None)


def _line_editor(app: CashCodeApp) -> LineEditor:
    from app.cli.line_editor import LineEditor

    return LineEditor(app.ctx.paths.data_dir)


async def _open_chat(app: CashCodeApp, resume: str | None, model: str) -> str | None:
    """The chat to talk in: a new one, or the stored one to resume (None: reported error)."""
    from app.cli.render import error_line

    if resume is None:
        created = await app.invoke("chats.create", {})
        chat_id: str = created["data"]["id"]
        print(f"New chat {chat_id} · {model} (/help for commands, /exit to leave)", file=sys.stderr)
        return chat_id
    found = await app.invoke("chats.get", {"chat_id": resume, "limit": 1000})
    if not found["ok"]:
        print(error_line(found["error"]), file=sys.stderr)
        return None
    detail = found["data"]
    count = sum(1 for m in detail["messages"] if m["role"] in ("user", "assistant") and m["content"])
    title = detail["chat"]["title"] or "untitled"
    print(f"Resumed chat {resume} “{title}” ({count} messages) · {model}", file=sys.stderr)
    return resume

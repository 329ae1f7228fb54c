"""`cashcode chat`: an interactive conversation; every completed turn is stored."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Coroutine
from enum import Enum
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.cli.runtime import CliError, add_approval_flag, add_model_flags, fail

if TYPE_CHECKING:
    from app.api.app import CashCodeApp
    from app.cli.line_editor import LineEditor
    from app.cli.render import TurnResult
    from app.cli.repl import Local
    from app.cli.runtime import Session


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("chat", help="chat interactively (/exit or Ctrl-D to leave)")
    parser.add_argument("--resume", metavar="ID", help="continue a stored chat")
    add_model_flags(parser)
    add_approval_flag(parser)
    parser.add_argument("--agent", metavar="NAME", help="the agent of a new chat (default: default)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_chat(args))


async def _chat(args: argparse.Namespace) -> int:
    from app.cli.render import EXIT_ERROR
    from app.cli.runtime import open_session

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))
    app = session.app
    try:
        opened = await _open_chat(
            app, args.resume, _provider_label(session), session.config.model, getattr(args, "agent", None)
        )
        if opened is None:
            return EXIT_ERROR
        return await _Repl(args, session, opened).run()
    finally:
        await app.aclose()


class _Leave(Enum):
    """What reading a line gave instead of a line."""

    LEAVE = "leave"  # end of input, or Ctrl-C twice at an empty prompt
    AGAIN = "again"  # one Ctrl-C at an empty prompt: ask again


class _Repl:
    """The conversation loop: read a line (queued ones first), answer a command locally or run a
    turn that lines typed meanwhile can steer or queue behind."""

    def __init__(self, args: argparse.Namespace, session: Session, chat_id: str) -> None:
        from app.cli.render import TerminalTurn
        from app.cli.terminal import StdinLines
        from app.cli.typed_lines import TypedLines

        self._args = args
        self._session = session
        self._app = session.app
        self._chat_id = chat_id
        self._interactive = StdinLines.is_interactive()
        self._lines = StdinLines()
        self._editor = _line_editor(self._app) if self._interactive and sys.stdout.isatty() else None
        # Lines typed while an answer streams: queued (sent after it), or `/steer TEXT`.
        self._queued: list[str] = []
        self._steering: set[asyncio.Task[None]] = set()
        self._typed = TypedLines(
            self._lines,
            lambda line: _typed_during_turn(line, self._app, self._chat_id, self._queued, self._steering),
        )
        startup_gc = getattr(args, "startup_gc", None)
        # Approvals need a person: piped input is conversation text, never a "yes".
        self._turn = TerminalTurn(
            self._app,
            out=sys.stdout,
            err=sys.stderr,
            stream=session.config.stream,
            stdin=self._typed if self._interactive else None,
            on_reply=startup_gc.resume if startup_gc else None,
            terminal=self._interactive and sys.stdout.isatty() and sys.stderr.isatty(),
        )
        self._interrupts = 0  # Ctrl-C presses in a row at an empty prompt
        self._returned = ""  # queued lines a Stop gave back: the next prompt starts with them

    async def run(self) -> int:
        from app.cli.repl import local_command, steer_idle_text

        while True:
            line = await self._read()
            if line is _Leave.AGAIN:
                continue
            if line is _Leave.LEAVE:
                return await self._leave()
            assert isinstance(line, str)
            command = local_command(line)
            if command is not None and command.action == "steer" and command.argument:
                print(steer_idle_text(), file=sys.stderr)
                line = command.argument
            elif command is not None:
                if command.action == "exit":
                    return await self._leave()
                self._chat_id, self._args.resume = await _answer_locally(
                    command, self._session, self._chat_id, self._args.resume
                )
                continue
            if line.strip():
                await self._send(line)

    async def _read(self) -> str | _Leave:
        try:
            if self._queued:  # typed during the last answer: sent now, in order
                line: str | None = self._queued.pop(0)
                print(f"(queued) > {line}", file=sys.stderr)
            elif self._editor is not None:
                line, self._returned = await self._editor.readline(self._returned), ""
            else:
                if self._interactive:
                    sys.stdout.write("> ")
                    sys.stdout.flush()
                line = await self._lines.readline()
        except KeyboardInterrupt:  # Ctrl-C at an empty prompt (the editor clears a typed one)
            self._interrupts += 1
            if self._interrupts >= 2:
                return _Leave.LEAVE
            print("(Ctrl-C again, or /exit, to leave)", file=sys.stderr)
            return _Leave.AGAIN
        self._interrupts = 0
        return _Leave.LEAVE if line is None else line

    async def _send(self, line: str) -> None:
        from app.cli.render import error_line

        watching = self._interactive and self._typed.start()
        try:
            run = self._turn.run(self._chat_id, line, self._session.model)
            result = await _stoppable(run, self._app, self._chat_id, self._interactive)
        finally:
            if watching:
                self._typed.stop()
            if self._steering:
                await asyncio.wait(self._steering)
        if result.error is not None:
            print(error_line(result.error, self._session.config), file=sys.stderr)
        elif result.code == 130 and self._interactive:
            self._returned = _give_back(self._queued, editable=self._editor is not None)

    async def _leave(self) -> int:
        return await _leave(self._app, self._chat_id, self._args.resume)


def _give_back(queued: list[str], *, editable: bool) -> str:
    """After a Stop the queued lines are not sent: with the line editor they fill the next
    prompt (to edit or send), else they are listed. Returns the next prompt's text."""
    from app.cli.repl import returned_text

    if not queued:
        print("Stopped.", file=sys.stderr)
        return ""
    print(returned_text(len(queued)), file=sys.stderr)
    back = "\n".join(queued)
    if not editable:
        for text in queued:
            print(f"  {text}", file=sys.stderr)
    queued.clear()
    return back if editable else ""


def _typed_during_turn(
    line: str, app: CashCodeApp, chat_id: str, queued: list[str], steering: set[asyncio.Task[None]]
) -> None:
    """A whole line typed while the answer streams: `/steer TEXT` goes to the running turn;
    anything else (a message or a command) waits in `queued`, in order."""
    from app.cli.repl import local_command, queued_text

    command = local_command(line)
    if command is not None and command.action == "steer" and command.argument:
        task = asyncio.get_running_loop().create_task(_steer(app, chat_id, command.argument, queued))
        steering.add(task)
        task.add_done_callback(steering.discard)
        return
    if not line.strip():
        return
    queued.append(line)
    print(queued_text(len(queued)), file=sys.stderr)


async def _steer(app: CashCodeApp, chat_id: str, text: str, queued: list[str]) -> None:
    from app.cli.repl import queued_text

    envelope = await app.invoke("chat.steer", {"chat_id": chat_id, "text": text})
    if not envelope["ok"]:  # the answer ended meanwhile: the text becomes the next message
        queued.append(text)
        print(queued_text(len(queued)), file=sys.stderr)


async def _stoppable(
    run: Coroutine[Any, Any, TurnResult], app: CashCodeApp, chat_id: str, interactive: bool
) -> TurnResult:
    """Run a turn; at a terminal, Ctrl-C stops the answer and the chat goes on (a REPL's Ctrl-C).
    Piped sessions keep the default: Ctrl-C leaves."""
    loop = asyncio.get_running_loop()
    if not interactive:
        return await run
    tasks: set[asyncio.Task[object]] = set()

    def stop() -> None:
        print("\nStopping…", file=sys.stderr)
        task = loop.create_task(app.invoke("chat.cancel", {"chat_id": chat_id}))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, stop)
    except (NotImplementedError, RuntimeError):  # no loop signal handlers here (Windows)
        return await run
    try:
        return await run
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous)  # asyncio.run's own handler, for the prompt


async def _answer_locally(
    command: Local, session: Session, chat_id: str, resume: str | None
) -> tuple[str, str | None]:
    """A command `chat` answers itself; returns the chat (and its --resume id) to go on with."""
    from app.cli.repl import CLEAR_SCREEN, HELP, model_text, unknown_text
    from app.cli.safe_text import raw_stream

    if command.action == "new":  # the current chat is kept (or dropped if untouched), as on /exit
        await _leave(session.app, chat_id, resume)
        fresh = await _open_chat(session.app, None, _provider_label(session), session.model["model"])
        return (fresh or chat_id), None
    if command.action == "model":
        if command.argument:
            session.model["model"] = command.argument  # the dict every next turn is sent with
        shown = model_text(_provider_label(session), session.model["model"], bool(command.argument))
        print(shown, file=sys.stderr)
    elif command.action == "clear":
        if sys.stdout.isatty():  # our own escape: written past the sanitising stream
            raw = raw_stream(sys.stdout)
            raw.write(CLEAR_SCREEN)
            raw.flush()
    else:
        print(HELP if command.action == "help" else unknown_text(command.name), file=sys.stderr)
    return chat_id, resume


async def _leave(app: CashCodeApp, chat_id: str, resume: str | None) -> int:
    """Leave the REPL: an untouched new chat is dropped, a kept one says how to resume it."""
    from app.cli.repl import resume_hint
    from app.cli.runtime import discard_if_empty

    if resume is None:
        await discard_if_empty(app, chat_id)
        kept = (await app.invoke("chats.get", {"chat_id": chat_id, "limit": 1}))["ok"]
    else:
        kept = True
    if kept:
        print(resume_hint(chat_id), file=sys.stderr)
    return 0


def _provider_label(session: Session) -> str:
    config = session.config
    return config.provider_name or urlsplit(config.base_url).netloc or config.base_url


def _line_editor(app: CashCodeApp) -> LineEditor:
    from app.cli.line_editor import LineEditor

    return LineEditor(app.ctx.paths.data_dir)


async def _open_chat(
    app: CashCodeApp, resume: str | None, provider: str, model: str, agent: str | None = None
) -> str | None:
    """The chat to talk in: a new one, or the stored one to resume (None: reported error)."""
    from app.cli.render import error_line
    from app.cli.repl import banner

    if resume is not None and agent is not None:
        print("cashcode: error: --agent is for a new chat (a chat keeps its agent)", file=sys.stderr)
        return None
    if resume is None:
        # Lazy, as in `ask`: stored with its first completed turn, so a terminal closed at an
        # idle prompt (SIGHUP/SIGTERM end the process at once) leaves no empty chat behind.
        new: dict[str, object] = {"lazy": True}
        if agent is not None:
            from app.cli.agent_ref import agent_id

            picked = await agent_id(app, agent)
            if isinstance(picked, int):
                return None
            new["agent_id"] = picked
        created = await app.invoke("chats.create", new)
        if not created["ok"]:
            print(error_line(created["error"]), file=sys.stderr)
            return None
        chat_id: str = created["data"]["id"]
        print(banner("New chat", chat_id, provider, model), file=sys.stderr)
        return chat_id
    found = await app.invoke("chats.get", {"chat_id": resume, "limit": 1000})
    if not found["ok"]:
        print(error_line(found["error"]), file=sys.stderr)
        return None
    detail = found["data"]
    count = sum(1 for m in detail["messages"] if m["role"] in ("user", "assistant") and m["content"])
    title = detail["chat"]["title"] or "untitled"
    print(f"Resumed chat {resume} “{title}” ({count} messages)", file=sys.stderr)
    print(banner("Chat", resume, provider, model), file=sys.stderr)
    return resume

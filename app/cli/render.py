"""Runs one turn in the terminal: sends it, prints the stream, asks approvals, waits for the end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from app.api.app import CashCodeApp
from app.cli.markdown_out import MarkdownStream
from app.cli.safe_text import DIM, visible, write_styled
from app.cli.spinner import Spinner
from app.cli.terminal import LineSource
from app.contracts.events import (
    AppEvent,
    ApprovalRequired,
    Delta,
    ErrorInfo,
    ToolCallEvent,
    ToolResultEvent,
    TurnCancelled,
    TurnDone,
    TurnFailed,
    TurnStarted,
    TurnSteered,
)

if TYPE_CHECKING:
    from app.settings.cli_config import EffectiveConfig

EXIT_OK, EXIT_ERROR, EXIT_CANCELLED = 0, 1, 130
EXIT_STEP_LIMIT = 3  # the turn stopped at --max-iterations without a final answer (documented)
_ARGS_PREVIEW = 200
# Said under every approval that starts a program (exec, run_skill_script): no sandbox.
USER_PERMISSIONS = (
    "This program runs with your permissions: it can read, change and send anything your user account can."
)


@dataclass(frozen=True)
class InboxWait:
    """`ask --wait`: questions wait in the Inbox; `timeout_s` None waits without a deadline."""

    timeout_s: float | None = None


@dataclass(frozen=True)
class TurnResult:
    code: int  # process exit code for this turn
    text: str = ""
    error: ErrorInfo | None = None


class TerminalTurn:
    def __init__(
        self,
        app: CashCodeApp,
        *,
        out: TextIO,
        err: TextIO,
        stream: bool,
        stdin: LineSource | None,
        on_reply: Callable[[], None] | None = None,
        terminal: bool = False,
        inbox: InboxWait | None = None,
    ) -> None:
        """`stdin` None: no terminal to ask — every approval is denied without asking, unless
        `inbox` (`ask --wait`): then it waits in the Inbox for an answer from any surface.
        `on_reply`: called once, at the first event after the turn started (the model answered,
        so every import of the turn is done) or when the turn ends.
        `terminal`: stdout and stderr are a terminal: a spinner until the first event, and the
        answer rendered as Markdown (never when piped: the output stays the plain answer)."""
        self._terminal = terminal
        self._markdown: MarkdownStream | None = None
        self._app = app
        self._out = out
        self._err = err
        self._stream = stream
        self._stdin = stdin
        self._prompt_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._on_reply = on_reply
        self._asked: set[str] = set()  # calls the user was asked about: their result gets a line
        self._tool_calls = 0  # of the current turn, for the closing note on failed tools
        self._tool_failures = 0
        self._inbox = inbox

    async def run(self, chat_id: str, text: str, model: dict[str, str]) -> TurnResult:
        done: asyncio.Future[AppEvent] = asyncio.get_running_loop().create_future()
        turn_id = ""
        wrote_text = False
        self._tool_calls = self._tool_failures = 0

        spinner = Spinner(self._err, enabled=self._terminal)

        def on_event(event: AppEvent) -> None:
            nonlocal wrote_text
            if getattr(event, "turn_id", None) != turn_id:
                return
            if not isinstance(event, TurnStarted):
                self._replied()
                spinner.stop()
            if isinstance(event, Delta) and event.channel == "text" and self._stream:
                try:
                    self._write_text(event.text)
                except BrokenPipeError as exc:  # `cashcode ask … | head`: the reader is gone
                    if not done.done():
                        done.set_exception(exc)
                    return
                wrote_text = wrote_text or bool(event.text)
            elif isinstance(event, ToolCallEvent):
                wrote_text = self._end_segment(wrote_text)
                self._tool_line(event, wrote_text)
            elif isinstance(event, TurnSteered):  # where the model got it: between two steps
                self._err.write("\n" if self._end_segment(wrote_text) else "")
                wrote_text = False
                write_styled(self._err, f"↳ steer: {_one_line(event.text)}", DIM)
                self._err.write("\n")
                self._err.flush()
            elif isinstance(event, ToolResultEvent):
                self._tool_calls += 1
                if not event.ok and not event.denied:
                    self._tool_failures += 1
                self._result_line(event)
            elif isinstance(event, ApprovalRequired):
                self._asked.add(event.call_id)
                wrote_text = self._end_segment(wrote_text)
                task = asyncio.get_running_loop().create_task(self._answer(event))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif isinstance(event, TurnDone | TurnFailed | TurnCancelled) and not done.done():
                done.set_result(event)

        unsubscribe = self._app.subscribe(on_event)
        try:
            envelope = await self._app.invoke("chat.send", {"chat_id": chat_id, "text": text, "model": model})
            if not envelope["ok"]:
                error = envelope["error"]
                return TurnResult(EXIT_ERROR, error=ErrorInfo(code=error["code"], message=error["message"]))
            turn_id = envelope["data"]["turn_id"]
            spinner.start()
            try:
                end = await done
            except BrokenPipeError:
                # Nobody reads the answer any more: stop the turn, then end quietly (cli/main.py).
                await self._app.invoke("chat.cancel", {"chat_id": chat_id})
                raise
        finally:
            unsubscribe()
            spinner.stop()
            self._replied()
            if self._inbox is not None:  # a question's timeout ends with its turn
                for task in list(self._tasks):
                    task.cancel()
        return self._finish(end, wrote_text)

    def _write_text(self, text: str) -> None:
        if self._terminal:
            if self._markdown is None:
                self._markdown = MarkdownStream(self._out)
            self._markdown.add(text)
            return
        self._out.write(visible(text))
        self._out.flush()

    def _end_segment(self, wrote_text: bool) -> bool:
        """Before a tool line or a prompt: the rendered text so far stays, on lines of its own.
        Returns whether the caller still has to start a new line."""
        if self._markdown is not None:
            self._markdown.close()
            self._markdown = None
            return False
        return wrote_text

    def _replied(self) -> None:
        if self._on_reply is not None:
            callback, self._on_reply = self._on_reply, None
            callback()

    def _finish(self, end: AppEvent, wrote_text: bool) -> TurnResult:
        rendered = self._markdown is not None
        if self._markdown is not None:  # the rendered answer ends on its own line
            self._markdown.close()
            self._markdown = None
            wrote_text = False
        if isinstance(end, TurnDone):
            if end.hit_limit:
                # The note is not an answer: it goes to stderr, and the exit status says so.
                if wrote_text:
                    self._out.write("\n")
                    self._out.flush()
                self._err.write(end.text + "\n")
                self._err.flush()
                return TurnResult(EXIT_STEP_LIMIT, text=end.text)
            if not self._stream and self._terminal and end.text:
                MarkdownStream(self._out).render_whole(end.text)  # ends with its own newline
            elif not rendered:
                if not self._stream:
                    self._out.write(visible(end.text))
                if end.text or wrote_text:
                    self._out.write("\n")
            self._out.flush()
            self._failed_tools_note()
            return TurnResult(EXIT_OK, text=end.text)
        if wrote_text:
            self._out.write("\n")
            self._out.flush()
        if isinstance(end, TurnFailed):
            return TurnResult(EXIT_ERROR, error=end.error)
        return TurnResult(EXIT_CANCELLED)

    def _failed_tools_note(self) -> None:
        """The model answered (exit 0), but an answer built on failed tools deserves a word:
        the trace's status is `done_with_errors` for the same turn."""
        if self._tool_failures:
            self._err.write(
                f"cashcode: note: {self._tool_failures} of {self._tool_calls} tool calls failed;"
                " the answer may rest on incomplete results.\n"
            )
            self._err.flush()

    def _tool_line(self, event: ToolCallEvent, wrote_text: bool) -> None:
        args = (
            event.arguments
            if len(event.arguments) <= _ARGS_PREVIEW
            else event.arguments[:_ARGS_PREVIEW] + "…"
        )
        self._err.write("\n" if wrote_text else "")
        write_styled(self._err, f"· {event.name} {args}", DIM)
        self._err.write("\n")
        self._err.flush()

    def _result_line(self, event: ToolResultEvent) -> None:
        """One short line under a tool call: `⊘ denied` for a refused call (the note the model
        gets is not for the user), the first line of a failure, and of an allowed change's
        result (a call that ran without asking prints nothing: its tool line is enough)."""
        first = event.output.splitlines()[0][:200] if event.output else ""
        shown = f" ({event.sandbox})" if event.sandbox else ""
        if event.denied:
            asked = event.call_id in self._asked
            write_styled(self._err, "  ⊘ denied" if asked else f"  ⊘ denied: {first}", DIM)
            self._err.write("\n")
        elif not event.ok:
            self._err.write(f"  ↳ {event.name}: {first}{shown}\n")
        elif event.call_id in self._asked:
            write_styled(self._err, f"  ↳ {first or 'done'}{shown}", DIM)
            self._err.write("\n")
        elif event.sandbox:
            write_styled(self._err, f"  ↳ {event.name}: {event.sandbox}", DIM)
            self._err.write("\n")
        else:
            return
        self._err.flush()

    async def _answer(self, event: ApprovalRequired) -> None:
        if self._stdin is None and self._inbox is not None:
            await self._wait_in_inbox(event, self._inbox)
            return
        decision = await self._ask(event)
        await self._app.invoke(
            "chat.approve", {"approval_id": event.approval_id, "decision": decision, "via": "cli"}
        )

    async def _wait_in_inbox(self, event: ApprovalRequired, inbox: InboxWait) -> None:
        """No terminal, `ask --wait`: the question waits in the Inbox; past the timeout it
        expires there (the turn is stopped)."""
        self._err.write(
            f"Waiting in the Inbox for {event.tool}: {event.title}. {_one_line(event.detail)}\n"
            f"  answer from any terminal: cashcode inbox approve {event.approval_id}"
            f" (or: cashcode inbox deny {event.approval_id})\n"
        )
        self._err.flush()
        if inbox.timeout_s is None:
            return
        await asyncio.sleep(inbox.timeout_s)
        # Answered meanwhile: the Inbox says "conflict" and nothing changes.
        await self._app.invoke("inbox.answer", {"id": event.approval_id, "via": "timeout"})

    async def _ask(self, event: ApprovalRequired) -> str:
        if self._stdin is None:
            self._err.write(
                f"Denied {event.tool}: {event.title} (no terminal to ask). {_one_line(event.detail)}\n"
            )
            self._err.flush()
            return "deny"
        async with self._prompt_lock:
            self._err.write(f"\n{event.title} ({event.tool}):\n{_indent(event.detail)}\n")
            if event.argv:
                self._err.write(f"{USER_PERMISSIONS}\n")
            options = "[y] once / [a] always / [N] deny" if event.can_always else "[y] once / [N] deny"
            self._err.write(f"Allow? {options}: ")
            self._err.flush()
            line = await self._stdin.readline()
        return _decision(line, event.can_always)


def _decision(line: str | None, can_always: bool) -> str:
    answer = (line or "").strip().lower()
    if answer in ("y", "yes", "once"):
        return "once"
    if can_always and answer in ("a", "always"):
        return "always"
    return "deny"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def error_line(error: ErrorInfo | dict[str, Any], config: EffectiveConfig | None = None) -> str:
    """One actionable line. For a rejected key, also say where the CLI got it from."""
    message = error.message if isinstance(error, ErrorInfo) else str(error.get("message", ""))
    code = error.code if isinstance(error, ErrorInfo) else str(error.get("code", ""))
    if code == "auth" and config is not None:
        message += f" (the key in use came from {config.sources.get('api_key', 'an unknown source')})"
    return "cashcode: error: " + " ".join(message.split())

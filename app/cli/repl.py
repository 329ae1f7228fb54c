"""The commands `cashcode chat` answers itself: never sent to the model.

A line is a command only when it is one word after a slash (`/help`); `/etc/hosts is …` is a
message. Only `/model` takes an argument (`/model NAME`). An unknown command is answered with
the list, so a typo never reaches the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

COMMAND = re.compile(r"^/([A-Za-z][A-Za-z-]*)$")
MODEL_COMMAND = re.compile(r"^/model\s+(\S{1,200})$", re.IGNORECASE)
EXIT_COMMANDS = frozenset({"exit", "quit"})

HELP = """Commands (answered here, never sent to the model):
  /help          this list
  /new           start a new chat (this one is kept; resume it with --resume)
  /model [NAME]  show the model, or use NAME for the next messages
  /clear         clear the screen (the chat goes on)
  /exit, /quit   leave (Ctrl-D too); the chat is kept, resume it with --resume
Keys: Enter sends · Alt-Enter (or Esc Enter) starts a new line · Up/Down browse earlier messages
      Ctrl-C stops an answer; at an empty prompt, Ctrl-C twice leaves."""


Action = Literal["help", "exit", "new", "model", "clear", "unknown"]
_PLAIN: dict[str, Action] = {"help": "help", "new": "new", "model": "model", "clear": "clear"}


@dataclass(frozen=True)
class Local:
    """What the REPL does with a line it answers itself."""

    action: Action
    name: str = ""
    argument: str = ""  # /model NAME


def local_command(line: str) -> Local | None:
    """The command in `line`, or None when the line is a message for the model."""
    if (model := MODEL_COMMAND.match(line.strip())) is not None:
        return Local("model", "model", model.group(1))
    match = COMMAND.match(line.strip())
    if match is None:
        return None
    name = match.group(1).lower()
    if name in EXIT_COMMANDS:
        return Local("exit", name)
    return Local(_PLAIN.get(name, "unknown"), name)


def unknown_text(name: str) -> str:
    return f"Unknown command /{name} (not sent). /help lists the commands."


def resume_hint(chat_id: str) -> str:
    return f"Chat kept. Resume it with: cashcode chat --resume {chat_id}"


# Home and erase the screen (not the scrollback: earlier answers stay reachable).
CLEAR_SCREEN = "\x1b[H\x1b[2J"


def model_text(provider: str, model: str, changed: bool) -> str:
    if changed:
        return f"The next messages use model {model} ({provider})."
    return f"Model {model} ({provider}). /model NAME uses another one (`cashcode models` lists them)."


def banner(what: str, chat_id: str, provider: str, model: str) -> str:
    return f"{what} {chat_id} · {provider} · model {model} (/help for commands, /exit to leave)"

"""The commands `cashcode chat` answers itself: never sent to the model.

A line is a command only when it is one word after a slash (`/help`); `/etc/hosts is …` is a
message. Only `/model` (`/model NAME`) and `/steer` (`/steer TEXT`) take an argument. An unknown
command is answered with the list, so a typo never reaches the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

COMMAND = re.compile(r"^/([A-Za-z][A-Za-z-]*)$")
MODEL_COMMAND = re.compile(r"^/model\s+(\S{1,200})$", re.IGNORECASE)
STEER_COMMAND = re.compile(r"^/steer\s+(\S.*)$", re.IGNORECASE | re.DOTALL)
EXIT_COMMANDS = frozenset({"exit", "quit"})

HELP = """Commands (answered here, never sent to the model):
  /help          this list
  /new           start a new chat (this one is kept; resume it with --resume)
  /model [NAME]  show the model, or use NAME for the next messages
  /clear         clear the screen (the chat goes on)
  /steer TEXT    while an answer streams: give TEXT to the model at its next step
  /exit, /quit   leave (Ctrl-D too); the chat is kept, resume it with --resume
Keys: Enter sends · Alt-Enter (or Esc Enter) starts a new line · Up/Down browse earlier messages
      A line typed while an answer streams is queued: sent when the answer ends
      Ctrl-C stops an answer (queued lines come back to the prompt); at an empty prompt,
      Ctrl-C twice leaves."""


Action = Literal["help", "exit", "new", "model", "clear", "steer", "unknown"]
_PLAIN: dict[str, Action] = {
    "help": "help",
    "new": "new",
    "model": "model",
    "clear": "clear",
    "steer": "steer",
}


@dataclass(frozen=True)
class Local:
    """What the REPL does with a line it answers itself."""

    action: Action
    name: str = ""
    argument: str = ""  # /model NAME, /steer TEXT


def local_command(line: str) -> Local | None:
    """The command in `line`, or None when the line is a message for the model."""
    if (model := MODEL_COMMAND.match(line.strip())) is not None:
        return Local("model", "model", model.group(1))
    if (steer := STEER_COMMAND.match(line.strip())) is not None:
        return Local("steer", "steer", steer.group(1).strip())
    match = COMMAND.match(line.strip())
    if match is None:
        return None
    name = match.group(1).lower()
    if name in EXIT_COMMANDS:
        return Local("exit", name)
    return Local(_PLAIN.get(name, "unknown"), name)


def unknown_text(name: str) -> str:
    return f"Unknown command /{name} (not sent). /help lists the commands."


def queued_text(count: int) -> str:
    return f"(queued: sent when this answer ends; {count} waiting)"


def steer_idle_text() -> str:
    return "No answer is running, so there is nothing to steer: sent as a message."


def returned_text(count: int) -> str:
    return f"Stopped. {count} queued message(s) not sent: back at the prompt to edit or send."


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

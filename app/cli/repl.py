"""The commands `cashcode chat` answers itself: never sent to the model.

A line is a command only when it is one word after a slash (`/help`); `/etc/hosts is …` is a
message. An unknown command is answered with the list, so a typo never reaches the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

COMMAND = re.compile(r"^/([A-Za-z][A-Za-z-]*)$")
EXIT_COMMANDS = frozenset({"exit", "quit"})

HELP = """Commands (answered here, never sent to the model):
  /help          this list
  /exit, /quit   leave (Ctrl-D too); the chat is kept, resume it with --resume
Keys: Enter sends · Alt-Enter (or Esc Enter) starts a new line · Up/Down browse earlier messages
      Ctrl-C stops an answer; at an empty prompt, Ctrl-C twice leaves."""


@dataclass(frozen=True)
class Local:
    """What the REPL does with a line it answers itself."""

    action: Literal["help", "exit", "unknown"]
    name: str = ""


def local_command(line: str) -> Local | None:
    """The command in `line`, or None when the line is a message for the model."""
    match = COMMAND.match(line.strip())
    if match is None:
        return None
    name = match.group(1).lower()
    if name in EXIT_COMMANDS:
        return Local("exit", name)
    if name == "help":
        return Local("help", name)
    return Local("unknown", name)


def unknown_text(name: str) -> str:
    return f"Unknown command /{name} (not sent). /help lists the commands."


def resume_hint(chat_id: str) -> str:
    return f"Chat kept. Resume it with: cashcode chat --resume {chat_id}"


def banner(what: str, chat_id: str, provider: str, model: str) -> str:
    return f"{what} {chat_id} · {provider} · model {model} (/help for commands, /exit to leave)"

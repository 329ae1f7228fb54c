"""Line editing for `cashcode chat` at a terminal: prompt_toolkit gives cursor movement, word
editing, history (Up/Down, Ctrl-R; kept in the data folder across runs) and multi-line input
(Alt-Enter or Esc Enter inserts a newline; pasted text keeps its newlines). Enter sends.

Only used when stdin and stdout are terminals; piped input keeps the plain reader.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

PROMPT = "> "
HISTORY_FILE = "cli-history"


class LineEditor:
    def __init__(self, history_dir: Path | None) -> None:
        # Imported here: prompt_toolkit costs start-up time that `ask` and piped chats never pay.
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.output import create_output

        from app.cli.safe_text import raw_stream

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _newline(event: object) -> None:
            event.current_buffer.insert_text("\n")  # type: ignore[attr-defined]

        # Ctrl-C clears a typed line (as a shell does); at an empty prompt it is the caller's
        # KeyboardInterrupt (twice in a row leaves the chat).
        @bindings.add("c-c")
        def _interrupt(event: object) -> None:
            buffer = event.current_buffer  # type: ignore[attr-defined]
            if buffer.text:
                buffer.reset()
            else:
                event.app.exit(exception=KeyboardInterrupt())  # type: ignore[attr-defined]

        history: History = InMemoryHistory()
        if history_dir is not None and history_dir.is_dir():
            history = FileHistory(str(history_dir / HISTORY_FILE))
        self._session: PromptSession[str] = PromptSession(
            # The editor's own escapes go to the real terminal, not through the sanitiser.
            output=create_output(stdout=raw_stream(sys.stdout)),
            history=history,
            key_bindings=bindings,
            multiline=False,
            prompt_continuation=lambda width, line_no, soft: "." * (width - 1) + " ",
            enable_history_search=False,
        )

    async def readline(self, default: str = "") -> str | None:
        """The next message (may span lines); None at end of input (Ctrl-D on an empty line).
        `default`: text already in the line (queued messages a Stop gave back)."""
        try:
            return await self._session.prompt_async(PROMPT, default=default)
        except EOFError:
            return None

"""The answer as rendered Markdown at a terminal (`rich`), plain text when piped.

While streaming, a `rich` Live view re-renders the answer so far a few times a second (headings,
lists, code blocks with colour); when the answer ends the final rendering stays on screen. The
model's text is made safe first (`visible`): rich keeps ESC sequences it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from app.cli.safe_text import raw_stream, visible

if TYPE_CHECKING:
    from rich.live import Live
    from rich.markdown import Markdown

REFRESH_PER_SECOND = 8


class MarkdownStream:
    def __init__(self, out: TextIO) -> None:
        # Imported here: only a terminal session pays for rich.
        from rich.console import Console

        self._console = Console(file=raw_stream(out), soft_wrap=False, highlight=False)
        self._text = ""
        self._live: Live | None = None

    def add(self, text: str) -> None:
        from rich.live import Live

        self._text += text
        if self._live is None:
            self._live = Live(
                self._render(),
                console=self._console,
                refresh_per_second=REFRESH_PER_SECOND,
                vertical_overflow="visible",
                auto_refresh=True,
            )
            self._live.start()
        else:
            self._live.update(self._render())

    def _render(self) -> Markdown:
        from rich.markdown import Markdown

        return Markdown(visible(self._text), code_theme="monokai")

    def close(self) -> bool:
        """End the live view (its last frame stays); True when anything was shown."""
        if self._live is None:
            return False
        self._live.update(self._render(), refresh=True)
        self._live.stop()
        self._live = None
        return True

    def render_whole(self, text: str) -> None:
        """A complete answer (streaming off) printed once, rendered."""
        self._console.print(self._render_text(text))

    def _render_text(self, text: str) -> Markdown:
        from rich.markdown import Markdown

        return Markdown(visible(text), code_theme="monokai")

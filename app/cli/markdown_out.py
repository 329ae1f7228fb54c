"""The answer as rendered Markdown at a terminal (`rich`), plain text when piped.

While streaming, every Markdown block that is finished (another top-level block has started
after it) is printed once, as normal output; only the block still growing is drawn in a `rich`
Live view, and never taller than the screen (its last lines while it is longer). A Live view can
redraw only what is on the screen: one taller than the screen used to print the whole answer
again on every refresh, filling the scrollback with copies of its beginning (issue 41). When the
answer ends the Live view is erased and the last block printed once. The model's text is made
safe first (`visible`): rich keeps ESC sequences it is given.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, TextIO

from app.cli.safe_text import raw_stream, visible

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.live import Live
    from rich.markdown import Markdown
    from rich.segment import Segment

REFRESH_PER_SECOND = 8
CODE_THEME = "monokai"


class MarkdownStream:
    def __init__(self, out: TextIO) -> None:
        # Imported here: only a terminal session pays for rich.
        from rich.console import Console

        self._console = Console(file=raw_stream(out), soft_wrap=False, highlight=False)
        self._pending = ""  # the text not printed yet: the block still growing (visible())
        self._printed = False  # a block was printed: the next one comes after a blank line
        self._live: Live | None = None
        self._parser: MarkdownIt | None = None
        self._refreshed = 0.0  # monotonic time of the last redraw of the Live view
        self._timer: asyncio.TimerHandle | None = None

    def add(self, text: str) -> None:
        from rich.live import Live

        self._pending += visible(text)
        if "\n" in text:  # a block can only have finished at a line end
            self._print_finished()
        if self._live is None:
            # Transient: the live region is erased when it stops, and its text printed once.
            # Refreshed from here, not by rich's timer thread: a refresh racing a print above
            # the view could leave a stale frame in the scrollback.
            self._live = Live(
                _Tail(self),
                console=self._console,
                vertical_overflow="visible",
                auto_refresh=False,
                transient=True,
            )
            self._live.start()
        self._redraw()

    def _redraw(self) -> None:
        """Redraw the Live view at most REFRESH_PER_SECOND times a second; text that came in
        between is drawn by a call on the event loop (the same thread) when the interval ends."""
        if self._live is None:
            return
        wait = self._refreshed + 1 / REFRESH_PER_SECOND - time.monotonic()
        if wait <= 0:
            self._refreshed = time.monotonic()
            self._live.refresh()
            return
        if self._timer is None:
            try:
                self._timer = asyncio.get_running_loop().call_later(wait, self._on_timer)
            except RuntimeError:  # no event loop: the next text or close() draws it
                pass

    def _on_timer(self) -> None:
        self._timer = None
        self._redraw()

    def _print_finished(self) -> None:
        """Print the top-level blocks that another block follows; keep the last one pending."""
        if self._parser is None:
            from markdown_it import MarkdownIt

            self._parser = MarkdownIt().enable("strikethrough").enable("table")  # as rich parses
        starts = [
            t.map[0] for t in self._parser.parse(self._pending) if t.level == 0 and t.nesting >= 0 and t.map
        ]
        if len(starts) < 2:
            return
        lines = self._pending.splitlines(keepends=True)
        finished, self._pending = "".join(lines[: starts[-1]]), "".join(lines[starts[-1] :])
        self._print_block(finished)

    def _print_block(self, text: str) -> None:
        if not text.strip():
            return
        markdown = self._markdown(text)
        if self._printed and not _starts_blank(self._console.render_lines(markdown, pad=False)):
            self._console.print()  # one blank line between blocks, as rich puts in one document
        # Above the Live view while it runs (rich moves it down), else as normal output.
        self._console.print(markdown)
        self._printed = True

    def _markdown(self, text: str) -> Markdown:
        from rich.markdown import Markdown

        return Markdown(text, code_theme=CODE_THEME)

    def tail(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The pending block as the Live view shows it: at most the screen's height less one
        line (the last ones), so the Live view can always erase what it drew."""
        from rich.segment import Segment

        if not self._pending.strip():
            return
        room = max(1, console.size.height - 1 - (1 if self._printed else 0))
        lines = console.render_lines(self._markdown(self._pending), options, pad=False)
        if self._printed and not _starts_blank(lines):
            yield Segment.line()
        for line in lines[-room:]:
            yield from line
            yield Segment.line()

    def close(self) -> bool:
        """End the live view and print what was still pending; True when anything was shown."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._live is None:
            return False
        self._live.stop()
        self._live = None
        self._print_block(self._pending)
        self._pending = ""
        return True

    def render_whole(self, text: str) -> None:
        """A complete answer (streaming off) printed once, rendered."""
        self._console.print(self._markdown(visible(text)))


def _starts_blank(lines: list[list[Segment]]) -> bool:
    """rich starts a list or a table with an empty line of its own (a code block's first line is
    its padding, which is not empty)."""
    return bool(lines) and not any(segment.text for segment in lines[0])


class _Tail:
    """The Live view's renderable: asks the stream for its pending block at each refresh."""

    def __init__(self, stream: MarkdownStream) -> None:
        self._stream = stream

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self._stream.tail(console, options)

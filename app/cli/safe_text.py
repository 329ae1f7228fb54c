"""The one sanitiser of the CLI's output: untrusted text (model answers, MCP tool descriptions
and results, chat titles, import plans) never reaches the terminal with a raw control sequence.

C0/C1 controls, DEL and bidi overrides are made visible (ESC -> "␛", U+009B -> "\\x9b"); newline
and tab stay. `SafeStream` wraps stdout/stderr for a CLI command, so every print goes through it;
the app's own styling is written with `styled`, which is the only way an ESC gets out.
"""

from __future__ import annotations

import os
import re
from typing import TextIO

# C0 except \t and \n, DEL, C1, the bidi embedding/override/isolate marks (spoofing), and lone
# surrogates (JSON may carry them; writing one to a UTF-8 terminal raises).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

# The app's own SGR styles (kept: they are ours, not the text's).
DIM, BOLD, RED = "2", "1", "31"


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␛ ␇ ␍ …
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control character shown as a harmless visible stand-in."""
    return _UNSAFE.sub(_visible, text)


class SafeStream:
    """A text stream that sanitises every write; `raw` is the wrapped stream (for prompt_toolkit)."""

    def __init__(self, raw: TextIO, *, colour: bool | None = None) -> None:
        self.raw = raw
        self._colour = colour if colour is not None else _wants_colour(raw)

    def write(self, text: str) -> int:
        return self.raw.write(visible(text))

    def styled(self, text: str, style: str) -> str:
        """The app's own styling around sanitised text (plain when not a colour terminal)."""
        return f"\x1b[{style}m{visible(text)}\x1b[0m" if self._colour else visible(text)

    def write_styled(self, text: str, style: str) -> None:
        self.raw.write(self.styled(text, style))

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> object:  # encoding, errors, closed, … of the real stream
        return getattr(self.raw, name)


def _wants_colour(stream: TextIO) -> bool:
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def raw_stream(stream: TextIO) -> TextIO:
    """The real stream under a `SafeStream` (the line editor draws its own, trusted, escapes)."""
    return stream.raw if isinstance(stream, SafeStream) else stream


def write_styled(stream: TextIO, text: str, style: str) -> None:
    """Styled on a `SafeStream` at a colour terminal, else the sanitised plain text."""
    if isinstance(stream, SafeStream):
        stream.write_styled(text, style)
    else:
        stream.write(visible(text))

"""SOUL.md, the persona (SPEC S5.5): read for the editor and saved atomically.

The prompt builder (app/core/prompt.py) loads it for every turn, falling back to the built-in
persona. Saving an empty text removes the file, which restores the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.prompt import DEFAULT_PERSONA, MAX_SOUL_CHARS, SOUL_FILE
from app.settings.user_settings import atomic_write_text

_USING_DEFAULT = "{path} {why}; the default persona is used until it is fixed or saved here."


@dataclass(frozen=True)
class SoulText:
    text: str
    is_default: bool
    notice: str | None = None


class SoulFile:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / SOUL_FILE

    def read(self) -> SoulText:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return SoulText(DEFAULT_PERSONA, True)
        except OSError as exc:
            return SoulText(
                DEFAULT_PERSONA, True, _USING_DEFAULT.format(path=self.path, why=f"cannot be read ({exc})")
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return SoulText(
                DEFAULT_PERSONA,
                True,
                _USING_DEFAULT.format(path=self.path, why="is not valid UTF-8"),
            )
        if not text.strip():
            return SoulText(DEFAULT_PERSONA, True)
        notice = None
        if len(text.strip()) > MAX_SOUL_CHARS:
            notice = (
                f"{self.path} is longer than {MAX_SOUL_CHARS} characters; only the first "
                f"{MAX_SOUL_CHARS} are used (shorten it here and save)."
            )
        return SoulText(text, False, notice)

    def save(self, text: str) -> SoulText:
        body = text.replace("\r\n", "\n").strip()
        if len(body) > MAX_SOUL_CHARS:
            raise ValueError(
                f"SOUL.md is limited to {MAX_SOUL_CHARS} characters (this text has {len(body)}); "
                "shorten it and save again"
            )
        if not body:
            self.path.unlink(missing_ok=True)
            return SoulText(DEFAULT_PERSONA, True)
        atomic_write_text(self.path, body + "\n")
        return SoulText(body + "\n", False)

"""Parse and print hotkey bindings such as "Ctrl+Shift+Space" (pure; no OS calls)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

MODIFIERS = ("Ctrl", "Shift", "Alt", "Super")
_ALIASES = {
    "ctrl": "Ctrl", "control": "Ctrl", "shift": "Shift", "alt": "Alt", "option": "Alt", "opt": "Alt",
    "⌥": "Alt", "super": "Super", "meta": "Super", "win": "Super", "cmd": "Super", "command": "Super",
    "⌘": "Super", "⇧": "Shift", "⌃": "Ctrl",
}  # fmt: skip
_NAMED_KEYS = ("Space", "Enter", "Tab", "Escape", "Backspace")
_KEY = re.compile(r"^(?:[A-Z0-9]|F(?:[1-9]|1[0-2]))$")

FALLBACK_COMMAND = "cashcode desktop --quick-ask"


class BindingError(ValueError):
    """The text is not a usable hotkey; the message says how to write one."""


@dataclass(frozen=True)
class Binding:
    modifiers: frozenset[str]
    key: str  # "Space", "A"…"Z", "0"…"9", "F1"…"F12", "Enter", "Tab", "Escape", "Backspace"

    def __str__(self) -> str:
        return "+".join([m for m in MODIFIERS if m in self.modifiers] + [self.key])


def default_binding(platform: str = sys.platform) -> Binding:
    """Ctrl+Shift+Space; ⌥Space on macOS (Ctrl+Space there is the input-source switch)."""
    if platform == "darwin":
        return Binding(frozenset({"Alt"}), "Space")
    return Binding(frozenset({"Ctrl", "Shift"}), "Space")


def parse_binding(text: str, platform: str = sys.platform) -> Binding:
    """ "" means the platform default. At least one modifier is required: a bare key would
    steal ordinary typing from every other program."""
    cleaned = text.strip()
    if not cleaned:
        return default_binding(platform)
    parts = [p.strip() for p in re.split(r"\s*\+\s*", cleaned)]
    if len(parts) < 2 or any(not p for p in parts):
        raise BindingError(
            f"{text!r} is not a shortcut: write it like Ctrl+Shift+Space (a modifier, then a key)"
        )
    modifiers: set[str] = set()
    for part in parts[:-1]:
        name = _ALIASES.get(part.lower())
        if name is None:
            raise BindingError(f"unknown modifier {part!r}: use Ctrl, Shift, Alt or Super")
        modifiers.add(name)
    key = _key_name(parts[-1])
    if key is None:
        raise BindingError(
            f"unsupported key {parts[-1]!r}: use a letter, a digit, F1-F12, Space, Enter or Tab"
        )
    return Binding(frozenset(modifiers), key)


def _key_name(raw: str) -> str | None:
    for named in _NAMED_KEYS:
        if raw.lower() == named.lower():
            return named
    upper = raw.upper()
    return upper if _KEY.match(upper) else None

from __future__ import annotations

import pytest

from app.desktop.hotkey.binding import BindingError, default_binding, parse_binding
from app.desktop.hotkey.windows import virtual_key
from app.desktop.hotkey.x11 import keysym_of


def test_defaults_per_platform() -> None:
    assert str(default_binding("linux")) == "Ctrl+Shift+Space"
    assert str(default_binding("win32")) == "Ctrl+Shift+Space"
    assert str(default_binding("darwin")) == "Alt+Space"  # ⌥Space
    assert parse_binding("", "linux") == default_binding("linux")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ctrl+shift+space", "Ctrl+Shift+Space"),
        ("Shift + Ctrl + k", "Ctrl+Shift+K"),
        ("⌥Space".replace("⌥", "⌥+"), "Alt+Space"),
        ("Super+F5", "Super+F5"),
        ("Alt+1", "Alt+1"),
    ],
)
def test_bindings_are_normalised(text: str, expected: str) -> None:
    assert str(parse_binding(text, "linux")) == expected


@pytest.mark.parametrize("text", ["Space", "Ctrl+", "Hyper+K", "Ctrl+PrintScreen", "Ctrl+F13"])
def test_unusable_bindings_say_how_to_write_one(text: str) -> None:
    with pytest.raises(BindingError):
        parse_binding(text, "linux")


def test_key_codes_of_the_native_adapters() -> None:
    assert keysym_of("Space") == 0x20 and keysym_of("K") == ord("k") and keysym_of("F1") == 0xFFBE
    assert virtual_key("Space") == 0x20 and virtual_key("K") == ord("K") and virtual_key("F12") == 0x7B

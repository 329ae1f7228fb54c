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


def test_portal_triggers_use_the_xdg_shortcut_names() -> None:
    from app.desktop.hotkey.portal import portal_trigger

    assert portal_trigger(parse_binding("Ctrl+Shift+Space", "linux")) == "CTRL+SHIFT+space"
    assert portal_trigger(parse_binding("Super+Alt+Enter", "linux")) == "ALT+LOGO+Return"
    assert portal_trigger(parse_binding("Ctrl+K", "linux")) == "CTRL+k"


def test_the_adapter_follows_the_session() -> None:
    from app.desktop.hotkey.base import NoHotkey
    from app.desktop.hotkey.choose import create_adapter
    from app.desktop.hotkey.x11 import X11Hotkey

    wayland = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}  # and no session bus
    no_portal = create_adapter(wayland, "linux")
    assert isinstance(no_portal, NoHotkey)
    status = no_portal.register(parse_binding("", "linux"), lambda: None)
    assert not status.active and "portal" in (status.reason or "")
    assert isinstance(create_adapter({"DISPLAY": ":99"}, "linux"), X11Hotkey)
    assert isinstance(create_adapter({}, "linux"), NoHotkey)

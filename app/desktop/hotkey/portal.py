"""Wayland: the XDG desktop portal's GlobalShortcuts interface over D-Bus (jeepney, which the
keyring already brings on Linux). The only sanctioned way to get a global shortcut on Wayland
(tech-notes §3.2; KDE 6+, GNOME 48+, Hyprland). The desktop may ask the user to confirm, so
registration waits (bounded) for the portal's answer.

Written to the portal specification; verified here only for "no portal" (no session bus in CI),
see docs/decisions.md.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Any

from app.desktop.hotkey.base import HotkeyStatus
from app.desktop.hotkey.binding import Binding

log = logging.getLogger(__name__)

BUS_NAME = "org.freedesktop.portal.Desktop"
OBJECT_PATH = "/org/freedesktop/portal/desktop"
INTERFACE = "org.freedesktop.portal.GlobalShortcuts"
SHORTCUT_ID = "quick-ask"
ANSWER_TIMEOUT_S = 60.0  # the user may be looking at the desktop's confirmation dialog
_PORTAL_MODIFIERS = {"Ctrl": "CTRL", "Shift": "SHIFT", "Alt": "ALT", "Super": "LOGO"}
_PORTAL_KEYS = {
    "Space": "space",
    "Enter": "Return",
    "Tab": "Tab",
    "Escape": "Escape",
    "Backspace": "BackSpace",
}


def portal_trigger(binding: Binding) -> str:
    """The XDG shortcuts format the portal takes as `preferred_trigger`, e.g. CTRL+SHIFT+space."""
    mods = [_PORTAL_MODIFIERS[m] for m in ("Ctrl", "Shift", "Alt", "Super") if m in binding.modifiers]
    key = _PORTAL_KEYS.get(binding.key, binding.key.lower() if len(binding.key) == 1 else binding.key)
    return "+".join([*mods, key])


def portal_available(env: Mapping[str, str]) -> bool:
    """Is there a session bus with a GlobalShortcuts portal? (Bounded: ~2 s at worst.)"""
    if not env.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    try:
        from jeepney import DBusAddress, Properties
        from jeepney.io.blocking import open_dbus_connection

        with open_dbus_connection(bus="SESSION") as conn:
            portal = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=INTERFACE)
            reply = conn.send_and_get_reply(Properties(portal).get("version"), timeout=2)
            return bool(reply.header.message_type.name == "method_return")
    except Exception as exc:  # no bus, no portal, or an old portal without the interface
        log.debug("no GlobalShortcuts portal: %s", exc)
        return False


class PortalHotkey:
    def __init__(self) -> None:
        self._conn: Any = None
        self._listener: Any = None
        self._session: str | None = None
        self._callback: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        from jeepney.io.blocking import open_dbus_connection

        self._callback = callback
        try:
            if self._conn is None:
                self._conn = open_dbus_connection(bus="SESSION")
                self._listener = open_dbus_connection(bus="SESSION")
                self._thread = threading.Thread(target=self._listen, name="hotkey-portal", daemon=True)
                self._thread.start()
            self._close_session()  # a session binds its shortcuts once; a new binding needs a new one
            self._session = self._create_session()
            code, results = self._request(
                "BindShortcuts",
                "oa(sa{sv})sa{sv}",
                self._session,
                [(SHORTCUT_ID, {"description": ("s", "CashCode Quick Ask"),
                                "preferred_trigger": ("s", portal_trigger(binding))})],
                "",
            )  # fmt: skip
        except Exception as exc:  # D-Bus errors, timeouts
            return HotkeyStatus(False, f"the desktop's shortcuts portal failed: {exc}")
        if code != 0:
            return HotkeyStatus(False, "the desktop did not allow the shortcut (cancelled or refused)")
        bound = [s for s, _props in results.get("shortcuts", ("a(sa{sv})", []))[1] if s == SHORTCUT_ID]
        if not bound:
            return HotkeyStatus(False, "the desktop did not bind the shortcut")
        return HotkeyStatus(True)

    def _create_session(self) -> str:
        token = "cashcode" + secrets.token_hex(6)
        code, results = self._request("CreateSession", "a{sv}", session_handle_token=token)
        if code != 0:
            raise OSError("the portal refused to create a shortcuts session")
        return str(results["session_handle"][1])

    def _request(self, method: str, signature: str, *args: Any, **options: str) -> tuple[int, dict[str, Any]]:
        """Call a portal method that answers through a Request object's Response signal."""
        from jeepney import DBusAddress, MatchRule, message_bus, new_method_call

        token = "cashcode" + secrets.token_hex(6)
        sender = self._conn.unique_name[1:].replace(".", "_")
        path = f"{OBJECT_PATH}/request/{sender}/{token}"
        rule = MatchRule(
            type="signal", interface="org.freedesktop.portal.Request", member="Response", path=path
        )
        self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
        opts = {"handle_token": ("s", token), **{k: ("s", v) for k, v in options.items()}}
        portal = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=INTERFACE)
        with self._conn.filter(rule) as queue:
            self._conn.send_and_get_reply(
                new_method_call(portal, method, signature, (*args, opts)), timeout=10
            )
            answer = self._conn.recv_until_filtered(queue, timeout=ANSWER_TIMEOUT_S)
        code, results = answer.body
        return int(code), dict(results)

    def _listen(self) -> None:
        from jeepney import MatchRule, message_bus

        rule = MatchRule(type="signal", interface=INTERFACE, member="Activated", path=OBJECT_PATH)
        self._listener.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
        with self._listener.filter(rule, bufsize=16) as queue:
            while not self._stop.is_set():
                try:
                    message = self._listener.recv_until_filtered(queue, timeout=1.0)
                except TimeoutError:
                    continue
                except OSError:
                    return
                session, shortcut = message.body[0], message.body[1]
                if session == self._session and shortcut == SHORTCUT_ID and self._callback is not None:
                    try:
                        self._callback()
                    except Exception:
                        log.exception("hotkey callback failed")

    def _close_session(self) -> None:
        if self._session is None:
            return
        from jeepney import DBusAddress, new_method_call

        session = DBusAddress(self._session, bus_name=BUS_NAME, interface="org.freedesktop.portal.Session")
        try:
            self._conn.send_and_get_reply(new_method_call(session, "Close"), timeout=5)
        except Exception as exc:  # already closed by the desktop
            log.debug("closing the portal session: %s", exc)
        self._session = None

    def close(self) -> None:
        self._stop.set()
        if self._conn is not None:
            self._close_session()
        if self._thread is not None:
            self._thread.join(2.0)
        for conn in (self._conn, self._listener):
            if conn is not None:
                conn.close()
        self._conn = self._listener = None

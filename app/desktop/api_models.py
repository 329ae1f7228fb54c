"""Request/response models of the desktop shell's adapter-only routes (`desktop.*`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class HotkeyView(_Model):
    binding: str  # what is (or would be) bound, e.g. "Ctrl+Shift+Space"
    active: bool  # registered with the system right now
    reason: str | None = None  # why not, in plain words
    fallback_command: str  # bind this in the system's keyboard settings instead


class PresenceView(_Model):
    """What the desktop shell can do on this system (Settings shows it)."""

    tray: bool  # a tray icon is showing
    tray_reason: str | None = None  # why there is no tray icon
    close_to_tray: bool  # the setting
    hotkey: HotkeyView
    notifications: bool  # finished turns and approvals can raise system notifications


class QuickChat(_Model):
    """The Quick Ask page reports which chat it shows (notifications open the right window)."""

    chat_id: str | None = Field(default=None, max_length=64)


class OpenChat(_Model):
    chat_id: str = Field(min_length=1, max_length=64)


class HotkeyInput(_Model):
    binding: str = Field(max_length=64)  # "" = the platform's default


class OpenPath(_Model):
    """Open a cited knowledge-base file (or, with `folder`, its folder) with the system."""

    path: str = Field(min_length=1, max_length=4096)
    folder: bool = False

"""OverrideBoard: which turns being started now are a task's (read by `turn_overrides`)."""

from __future__ import annotations

from app.contracts.capability import TurnOverrides


class OverrideBoard:
    """The task turns being started now: chat id → (prompt, overrides). The runner writes it,
    `turn_overrides` reads it, so only the turn a run starts gets the task's settings."""

    def __init__(self) -> None:
        self._starting: dict[str, tuple[str, TurnOverrides]] = {}

    def set(self, chat_id: str, text: str, overrides: TurnOverrides) -> None:
        self._starting[chat_id] = (text, overrides)

    def clear(self, chat_id: str) -> None:
        self._starting.pop(chat_id, None)

    def get(self, chat_id: str, text: str) -> TurnOverrides | None:
        pending = self._starting.get(chat_id)
        return pending[1] if pending is not None and pending[0] == text else None

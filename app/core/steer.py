"""The steer inbox of one running turn: text a user typed while the turn runs (Steer), handed to
the model at its next call inside the same turn.

The loop drains it after each step (after the tool results, or after an answer) and closes it
when it ends the turn with nothing left to give, in the same synchronous stretch: a steer either
reaches the model or is refused (`put` returns False) and the caller treats it as a new message.
Everything runs on the core loop, so no lock is needed.
"""

from __future__ import annotations


class SteerInbox:
    def __init__(self) -> None:
        self._texts: list[str] = []
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def put(self, text: str) -> bool:
        """Add steer text; False once the turn no longer takes any (it ended or is ending)."""
        if self._closed:
            return False
        self._texts.append(text)
        return True

    def drain(self) -> list[str]:
        """What arrived since the last drain, oldest first."""
        texts, self._texts = self._texts, []
        return texts

    def close(self) -> list[str]:
        """No more steers: returns what was put and never drained."""
        self._closed = True
        return self.drain()

"""Cyclic garbage collection is paused while a one-shot command starts.

Start-up allocates a few hundred thousand long-lived objects (modules, ~2,000 classes of the
app, pydantic and the OpenAI SDK). The collector keeps walking them — about 210 collections
costing ~80 ms CPU for one `cashcode ask`, 8 % of its run — and frees almost nothing, since
imported objects live until exit. So `ask` and `chat` pause it until the model's first reply
arrives (every import is done by then), then `gc.freeze()` moves everything allocated so far
out of the collector's sight and collection resumes as normal for the rest of the process.
"""

from __future__ import annotations

import gc


class StartupGc:
    """Pause once, resume once (idempotent); resuming without a pause does nothing."""

    def __init__(self) -> None:
        self._paused = False

    def pause(self) -> None:
        if gc.isenabled():
            gc.disable()
            self._paused = True

    def resume(self) -> None:
        if self._paused:
            self._paused = False
            gc.freeze()  # start-up objects stay for good: later collections skip them
            gc.enable()

    @property
    def paused(self) -> bool:
        return self._paused

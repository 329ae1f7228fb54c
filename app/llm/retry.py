"""Retry with jittered exponential backoff, only before the first event of a stream.

Once an event has reached the consumer a retry would duplicate output, so later failures
are raised at once.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TypeVar

from app.contracts.provider import ProviderError, ProviderErrorCode

E = TypeVar("E")

RETRYABLE: frozenset[ProviderErrorCode] = frozenset(
    {"rate_limit", "server", "unreachable", "ollama_not_running", "disconnected"}
)

# A refused or failed connection rarely heals within seconds (the server is not running, the
# host is wrong): retry it once, so `cashcode ask` with a bad host fails fast.
CONNECT_FAILURES: frozenset[ProviderErrorCode] = frozenset({"unreachable", "ollama_not_running"})
CONNECT_RETRIES = 1

# A server error other than these is most likely the same for the same request (llama-cpp-python
# answers 500 to a body it cannot take): it is sent once more, never four times (issue 34).
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})
DETERMINISTIC_RETRIES = 1


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    retry_after_cap_s: float = 30.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Seconds to wait before retry number `attempt + 1`. A server's Retry-After wins (capped)."""
        if retry_after_s is not None:
            return float(min(retry_after_s, self.retry_after_cap_s))
        backoff = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        # "Equal jitter": at least half the backoff, so retries never hammer the server.
        return float(backoff / 2 + self.rng.uniform(0, backoff / 2))


async def retrying(
    attempt: Callable[[], AsyncGenerator[E, None]], policy: RetryPolicy
) -> AsyncGenerator[E, None]:
    """Run `attempt()` and re-run it on retryable ProviderErrors raised before its first event."""
    retries = 0
    while True:
        started = False
        try:
            async with aclosing(attempt()) as events:
                async for event in events:
                    started = True
                    yield event
            return
        except ProviderError as err:
            limit = policy.max_retries
            if err.code in CONNECT_FAILURES:
                limit = min(limit, CONNECT_RETRIES)
            elif err.status is not None and err.status not in TRANSIENT_STATUSES:
                limit = min(limit, DETERMINISTIC_RETRIES)
            if started or err.code not in RETRYABLE or retries >= limit:
                if retries:
                    err.details["attempts"] = str(retries + 1)
                raise
            wait = policy.delay(retries, err.retry_after_s)
        retries += 1
        await policy.sleep(wait)

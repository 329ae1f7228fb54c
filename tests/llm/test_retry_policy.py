"""The backoff policy itself (pure: no sleeping)."""

from __future__ import annotations

import random

from app.llm.retry import RetryPolicy


def test_backoff_grows_exponentially_with_jitter_within_bounds() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=100.0, rng=random.Random(7))
    for attempt in range(5):
        full = 2.0**attempt
        for _ in range(20):
            assert full / 2 <= policy.delay(attempt, None) <= full


def test_backoff_never_exceeds_the_maximum() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    assert all(policy.delay(attempt, None) <= 4.0 for attempt in range(10))


def test_retry_after_wins_over_backoff_but_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, retry_after_cap_s=30.0)
    assert policy.delay(0, 0.0) == 0.0
    assert policy.delay(3, 2.5) == 2.5
    assert policy.delay(0, 600.0) == 30.0

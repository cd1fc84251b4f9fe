"""The retry state machine shared by capabilities and the LLM endpoint.

    attempt ──ok──────────────────────────────► done
       │ Retryable (timeout, connection, 429, 5xx)
       ├─ attempts < cap: wait base*2^n + jitter (or Retry-After, at most max_wait), try again
       └─ attempts = cap: RetryExhausted ──────► escalate (structured `unavailable` or stop)
    anything else propagates at once (not retryable, or auth: stop)

The clock is injected (``sleep``), so tests count waits instead of measuring wall time. It lives at
the bottom of the pipeline's layers: the gateway (capabilities) and pipeline.model (agent turns) both
use it, and neither imports the other.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from capabilities.errors import Retryable
from config import Settings

T = TypeVar("T")


class RetryExhausted(Exception):
    """The attempt cap was reached; ``last`` is the final transient error."""

    def __init__(self, last: Retryable, attempts: int) -> None:
        super().__init__(f"{last.detail} (gave up after {attempts} attempts)")
        self.last = last
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    base_delay: float = 0.5
    max_wait: float = 30.0

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        return cls(settings.retry_max_attempts, settings.retry_base_delay, settings.retry_max_wait)

    def delay(self, retry_number: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry_number`` (0-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_wait)
        return min(self.base_delay * 2**retry_number + rng.uniform(0, self.base_delay), self.max_wait)


OnRetry = Callable[[int, float, Retryable], None]


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    on_retry: OnRetry,
    rng: random.Random | None = None,
) -> tuple[T, int]:
    """Run ``fn`` under ``policy``; returns (result, attempts). Raises RetryExhausted at the cap."""
    rng = rng or random.Random()
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return fn(), attempt
        except Retryable as exc:
            if attempt == policy.max_attempts:
                raise RetryExhausted(exc, attempt) from exc
            wait = policy.delay(attempt - 1, exc.retry_after, rng)
            on_retry(attempt, wait, exc)
            sleep(wait)
    raise AssertionError("unreachable: max_attempts >= 1")

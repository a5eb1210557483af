"""The one retry schedule of background work (emails, webhook deliveries): a wait that doubles
after each failed attempt, up to a ceiling, with optional jitter so that what an outage held
back does not all come back at the same second."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True)
class Backoff:
    """`base` after the first failed attempt, doubled after each one, at most `ceiling`,
    within ±`jitter` (0.25: a quarter either way)."""

    base: timedelta
    ceiling: timedelta | None = None
    jitter: float = 0.0

    def delay(self, attempt: int) -> timedelta:
        """The wait after failed attempt number `attempt` (1 for the first)."""
        seconds = self.base.total_seconds() * 2 ** max(attempt - 1, 0)
        if self.ceiling is not None:
            seconds = min(seconds, self.ceiling.total_seconds())
        if self.jitter:
            seconds *= random.uniform(1 - self.jitter, 1 + self.jitter)
        return timedelta(seconds=seconds)

"""The one retry schedule (core.retries.Backoff): doubled after each failure, capped, jittered."""

from __future__ import annotations

from datetime import timedelta

from tradepost.core.retries import Backoff


def test_the_wait_doubles_up_to_the_ceiling_within_the_jitter():
    plain = Backoff(base=timedelta(seconds=30), ceiling=timedelta(minutes=4))
    assert [plain.delay(n).total_seconds() for n in range(1, 7)] == [30, 60, 120, 240, 240, 240]
    assert plain.delay(0) == plain.delay(1) == timedelta(seconds=30)
    jittered = Backoff(base=timedelta(seconds=100), jitter=0.25)
    waits = {jittered.delay(3).total_seconds() for _ in range(50)}
    assert all(300 <= wait <= 500 for wait in waits) and len(waits) > 1

"""`bench/insights_bench.py` runs its scenarios and counts what it requested (smoke test: the
numbers it measures are for bench/results, not for assertions)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from bench import insights_bench

pytestmark = pytest.mark.django_db


@pytest.fixture
def connections_kept() -> Iterator[None]:
    """The bench sends its requests through the WSGI handler, which closes the database
    connection after each one; inside a test that would end the test's transaction (on
    PostgreSQL). Keep it open, as Django's test client does."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_the_bench_times_counting_on_and_off(settings, connections_kept):
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 0
    settings.TRADEPOST_INSIGHTS_COUNTING = True
    report = insights_bench.run(rounds=2)
    assert set(report["scenarios"]) == {
        "product page",
        "product page from the page cache",
        "search results",
    }
    for row in report["scenarios"].values():
        assert row["ratio_total_p50"] > 0
    # Only the rounds with counting on were counted (warm-ups: half of 20 each).
    assert report["counted"]["product_views"] == 2 * (2 + 10)
    assert report["counted"]["search_word_rows"] > 0
    assert "| product page |" in insights_bench._markdown(report)

"""The query planner gets its statistics after bulk loads and when a worker finds none."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from tests.factories.catalog import make_product
from tradepost.core.database import (
    ensure_planner_statistics,
    has_planner_statistics,
    refresh_planner_statistics,
)

pytestmark = pytest.mark.django_db

sqlite_only = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite statistics")


def _forget_statistics() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone():
            cursor.execute("DELETE FROM sqlite_stat1")


def _product_statistics() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'catalog_product'")
        return cursor.fetchall()


@sqlite_only
def test_statistics_record_that_the_status_is_not_selective():
    _forget_statistics()
    assert not has_planner_statistics()
    for n in range(4):
        make_product(title=f"Oak board {n}")
    refresh_planner_statistics()
    assert has_planner_statistics()
    stats = dict(_product_statistics())
    # Four listings, all published: each status value is shared by all four rows.
    assert stats["product_status_published"].split()[:2] == ["4", "4"]


@sqlite_only
def test_a_database_without_statistics_is_measured_once():
    make_product(title="Walnut tray")
    _forget_statistics()
    assert ensure_planner_statistics() is True
    assert _product_statistics()
    assert ensure_planner_statistics() is False


@sqlite_only
def test_the_worker_measures_the_database_as_it_starts(monkeypatch):
    from tradepost.ops.management.commands import worker

    monkeypatch.setattr(worker, "call_command", lambda *args, **kwargs: None)  # no task queue
    make_product(title="Walnut tray")
    _forget_statistics()
    call_command("worker", "--batch", "--no-indexer")
    assert has_planner_statistics()


def test_refreshing_works_on_either_database():
    make_product(title="Linen napkin")
    refresh_planner_statistics()
    assert has_planner_statistics()

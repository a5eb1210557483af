"""Writes of the insights app: adding to the daily counters.

Each is one statement (an INSERT that adds to the day's row when there is one, on SQLite and
PostgreSQL alike), so concurrent requests never lose a count and never race to create the
row. They run after the response has been handed over (`insights.counting`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from django.db import connection, transaction
from django.utils import timezone

from tradepost.insights.models import WORD_MAX_LENGTH, ProductViewDay, SearchWordDay

#: Counters older than this are deleted by the worker (`ops.periodic`).
RETENTION_DAYS = 400


def _name(model: type, column: str | None = None) -> str:
    quote = connection.ops.quote_name
    return quote(column) if column else quote(model._meta.db_table)  # type: ignore[attr-defined]


def product_view_record(*, product_id: int, company_id: int, day: date | None = None) -> None:
    """One more view of the product on `day` (today by default)."""
    table = _name(ProductViewDay)
    count = _name(ProductViewDay, "count")
    # The names come from the model, the values are parameters.
    sql = (
        f"INSERT INTO {table} (product_id, company_id, day, {count}) VALUES (%s, %s, %s, 1) "  # noqa: S608
        f"ON CONFLICT (product_id, day) DO UPDATE SET {count} = {table}.{count} + 1"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [product_id, company_id, day or timezone.localdate()])


def search_impressions_record(
    *, company_ids: Iterable[int], words: Iterable[str], day: date | None = None
) -> int:
    """One more search that showed each company's listings, for each word of the query;
    answers the number of (company, word) pairs counted."""
    companies = sorted({int(pk) for pk in company_ids})
    kept = list(dict.fromkeys(word for word in words if word and len(word) <= WORD_MAX_LENGTH))
    if not companies or not kept:
        return 0
    table = _name(SearchWordDay)
    count = _name(SearchWordDay, "count")
    day = day or timezone.localdate()
    rows = [(company_id, word, day) for company_id in companies for word in kept]
    values = ", ".join(["(%s, %s, %s, 1)"] * len(rows))
    sql = (
        f"INSERT INTO {table} (company_id, word, day, {count}) VALUES {values} "  # noqa: S608
        f"ON CONFLICT (company_id, day, word) DO UPDATE SET {count} = {table}.{count} + 1"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [value for row in rows for value in row])
    return len(rows)


def counters_prune(*, today: date | None = None, days: int = RETENTION_DAYS) -> int:
    """Delete the counters older than `days` days; answers how many rows went."""
    before = (today or timezone.localdate()) - timedelta(days=days)
    views, _ = ProductViewDay.objects.filter(day__lt=before).delete()
    words, _ = SearchWordDay.objects.filter(day__lt=before).delete()
    return views + words

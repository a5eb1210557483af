"""Database upkeep, and reads and writes that the ORM does not do by itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, Model, QuerySet


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{name} is a relation's other side, not a column"
    return field


#: Rows handed to the driver at once by `insert_rows`.
INSERT_BATCH = 5000


def insert_rows(
    model: type[Model],
    fields: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    using: str = DEFAULT_DB_ALIAS,
) -> None:
    """Insert `rows` (values of `fields`, in their order, ready for the database: see
    `Field.get_db_prep_value`) into the model's table with one prepared INSERT run for every
    row (the driver's `executemany`). For tables of a few plain columns written in bulk (the
    search outbox, fingerprint bands), where `bulk_create` building a model and compiling
    each row is most of the time. No ids are answered, no signals sent, no defaults filled.
    """
    if not rows:
        return
    connection = connections[using]
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(str(_field(model, name).column)) for name in fields)
    marks = ", ".join(["%s"] * len(fields))
    # Names from the model's metadata, quoted; every value a parameter.
    sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608
    with connection.cursor() as cursor:
        for start in range(0, len(rows), INSERT_BATCH):
            cursor.executemany(sql, rows[start : start + INSERT_BATCH])


def id_chunks(
    rows: Callable[[], QuerySet[Any]], columns: Sequence[str], size: int
) -> Iterator[list[dict[str, Any]]]:
    """The rows of `rows()` in id order, `size` at a time, as dicts of `columns` ("id" among
    them). Each chunk is one query for the ids after the last one read, so the last chunk is
    as quick as the first; `rows` is called again for each, so a condition on the time stays
    current through a long run."""
    last_id = 0
    while True:
        chunk = list(rows().filter(id__gt=last_id).order_by("id").values(*columns)[:size])
        if not chunk:
            return
        last_id = chunk[-1]["id"]
        yield chunk


def refresh_planner_statistics(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """Measure the tables for the database's query planner (ANALYZE).

    SQLite keeps no statistics until ANALYZE runs, and without them it takes an equality
    on any indexed column for a selective one: `status = 'published'`, true of nearly every
    listing, sent the public product list (newest first) through the (status,
    published_at) index and a sort of every listing — 0.8 s at a million listings, 4 ms
    with statistics. Run after bulk loads (the demo, `tradepost generate`) and by the
    worker when a database has none; the shape they record (how many rows share a value)
    stays true as the catalogue grows. PostgreSQL gathers statistics by itself
    (autovacuum); ANALYZE here only makes them current at once after a bulk load.
    """
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA analysis_limit=0")  # every row: samples misjudge `status`
            cursor.execute("ANALYZE")
        elif connection.vendor == "postgresql":
            cursor.execute("ANALYZE")


def has_planner_statistics(*, using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether ANALYZE has run on this database (always true for PostgreSQL)."""
    connection = connections[using]
    if connection.vendor != "sqlite":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return False
        cursor.execute("SELECT 1 FROM sqlite_stat1 LIMIT 1")
        return cursor.fetchone() is not None


def ensure_planner_statistics(*, using: str = DEFAULT_DB_ALIAS) -> bool:
    """Measure the tables when the database never was (the worker does this as it starts:
    a database filled by other means than the demo or `generate`). True when it ran."""
    if has_planner_statistics(using=using):
        return False
    refresh_planner_statistics(using=using)
    return True

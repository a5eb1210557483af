"""Database upkeep that the ORM does not do by itself."""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections


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

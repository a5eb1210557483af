"""Database connections are kept between requests, with a larger page cache on SQLite."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

pytestmark = pytest.mark.django_db


def test_connections_are_kept_between_requests():
    # A connection per request made SQLite read the schema again and start with an empty
    # page cache on every request (docs/operations.md, "Database connections").
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] >= 60


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_sqlite_connections_cache_eight_megabytes():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        assert cursor.fetchone()[0] == -8192
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] in {"wal", "memory"}

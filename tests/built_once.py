"""Objects built once for a whole module or package of tests, instead of once per test.

They are written inside one outer transaction that is rolled back when the scope ends (the
next module sees the database as it was); each test's own `db` transaction nests inside it as a
savepoint, so every test starts from the same stored state. Media, private files and the search
index go to the scope's own folder, and no search handle or cache outlives the scope.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import transaction
from django.test import override_settings

from tradepost.search import index, selectors


@contextmanager
def built_once(django_db_blocker, folder: Path) -> Iterator[None]:
    """Inside: the database is open to the fixture, and what it writes is rolled back on
    leaving (the caller takes `django_db_setup` so the test database exists)."""
    with (
        django_db_blocker.unblock(),
        override_settings(
            MEDIA_ROOT=folder / "media",
            TRADEPOST_PRIVATE_ROOT=folder / "private",
            TRADEPOST_INDEX_DIR=folder / "index",
        ),
    ):
        index.forget_indexes()
        selectors.clear_caches()
        try:
            with transaction.atomic():
                yield
                transaction.set_rollback(True)
        finally:
            index.forget_indexes()
            selectors.clear_caches()

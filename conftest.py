"""Project-wide pytest set-up: isolated media folder per test, database checks."""

import os
import signal

import pytest


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.TRADEPOST_PRIVATE_ROOT = tmp_path / "private"
    yield


@pytest.fixture(autouse=True)
def _isolated_search_index(settings, tmp_path):
    """Each test gets its own (empty until used) search index folder, and no index handle,
    category tree or facet counts cached by an earlier test. A module may override it by
    name with an index of its own."""
    from tradepost.money.rates import forget_rates
    from tradepost.search import index, selectors

    settings.TRADEPOST_INDEX_DIR = tmp_path / "index"
    index.forget_indexes()
    selectors.clear_caches()
    forget_rates()
    yield settings.TRADEPOST_INDEX_DIR
    index.forget_indexes()
    selectors.clear_caches()
    forget_rates()


@pytest.fixture(autouse=True)
def _no_cached_showcase():
    """No list of showcased products cached by an earlier test (its rows are rolled back,
    their ids used again)."""
    from tradepost.catalog.showcase_selectors import forget_showcase_cache

    forget_showcase_cache()
    yield
    forget_showcase_cache()


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in English, whatever language an earlier test activated."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A test that runs the server's or the worker's code in this process leaves their SIGTERM
    and SIGINT handlers behind; the next test finds this process's own again."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    yield
    for number, handler in saved.items():
        if signal.getsignal(number) is not handler:
            signal.signal(number, handler)


#: The fixtures through which a test reaches the database (pytest-django refuses any other).
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)


def uses_the_database(item: pytest.Item) -> bool:
    """Whether a test may use the test database: pytest-django blocks it for any other, so
    such a test runs the same on every database (the tests that run real processes give
    them an SQLite database of their own: tests/processes.py)."""
    return item.get_closest_marker("django_db") is not None or bool(
        DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """With TRADEPOST_DATABASE_TESTS_ONLY set (CI's run on its second database), only the
    tests that use the database run: the others ran on the first one and cannot differ.

    The browser tests and the slow ones first, in the random order pytest-randomly gave
    them (both its hook and pytest-django's, which puts transactional tests after the others,
    run before this one). Last, they left one worker to finish the run alone; first, the other
    worker takes over the short tests meanwhile (pytest-xdist's worksteal gives each worker a
    contiguous share and steals from the end of it)."""

    if os.environ.get("TRADEPOST_DATABASE_TESTS_ONLY"):
        deselected = [item for item in items if not uses_the_database(item)]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if uses_the_database(item)]

    def light(item: pytest.Item) -> bool:
        return item.get_closest_marker("e2e") is None and item.get_closest_marker("slow") is None

    items.sort(key=light)


def pytest_sessionstart(session):
    from django.apps import apps
    from django.conf import settings
    from django.db.models.signals import post_migrate

    from tests.reference_data import restore_reference_data
    from tradepost.config.home import prepare_home

    prepare_home()  # the data folder, as the tradepost command makes it before Django starts
    # A transactional test's flush empties the tables the migrations filled; Django sends
    # post_migrate after it (once per app: the catalogue's is enough).
    post_migrate.connect(
        restore_reference_data,
        sender=apps.get_app_config("catalog"),
        dispatch_uid="tests.restore_reference_data",
    )

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" in engine:
        _flush_by_delete()
    if os.environ.get("TRADEPOST_REQUIRE_POSTGRES") and "postgresql" not in engine:
        raise pytest.UsageError(
            "TRADEPOST_REQUIRE_POSTGRES is set but DATABASE_URL is not PostgreSQL"
        )


def _flush_by_delete() -> None:
    """A transactional test's flush empties the tables with one DELETE each, in one
    transaction (PostgreSQL checks Django's foreign keys at its commit), instead of Django's
    one TRUNCATE of every table: on tables this small, 0.08 s against 0.47 s a flush (62
    tables), paid by every transactional test. A flush that resets sequences or cascades is
    Django's own."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        delete = style.SQL_KEYWORD("DELETE FROM")
        return [f"{delete} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]

    DatabaseOperations.sql_flush = sql_flush

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
    if os.environ.get("TRADEPOST_REQUIRE_POSTGRES") and "postgresql" not in engine:
        raise pytest.UsageError(
            "TRADEPOST_REQUIRE_POSTGRES is set but DATABASE_URL is not PostgreSQL"
        )

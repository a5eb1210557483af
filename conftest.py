"""Project-wide pytest set-up: isolated media folder per test, database checks."""

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    yield


@pytest.fixture(autouse=True)
def _isolated_search_index(settings, tmp_path):
    """Each test gets its own (empty until used) search index folder."""
    settings.TRADEPOST_INDEX_DIR = tmp_path / "index"
    yield


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in English, whatever language an earlier test activated."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


def pytest_sessionstart(session):
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if os.environ.get("TRADEPOST_REQUIRE_POSTGRES") and "postgresql" not in engine:
        raise pytest.UsageError(
            "TRADEPOST_REQUIRE_POSTGRES is set but DATABASE_URL is not PostgreSQL"
        )

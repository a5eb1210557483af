"""Fixtures shared by the tests of several apps (the per-test folders, caches and language
are the root conftest's)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.core.cache import cache
from django.db import connections

from tests.duplicate_listings import FLASK, FLASK_COPY
from tests.factories.catalog import product_fields
from tests.factories.companies import Cast, make_cast
from tests.factories.search import Catalogue, build_catalogue, make_board
from tests.mail import CollectingHandler
from tests.network import free_port
from tests.processes import migrated_database, migrated_home
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Product
from tradepost.sourcing.matching import _local_terms


@pytest.fixture
def media_root(_isolated_media, settings):
    """This test's own media folder."""
    return settings.MEDIA_ROOT


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A migrated SQLite database for the tests that run real processes, made once for the
    whole run (the folder above a parallel worker's temporary folder is this run's, shared)."""
    folder = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = folder.parent
    return migrated_database(folder)


@pytest.fixture
def process_home(tmp_path, migrated_sqlite) -> Path:
    """This test's installation folder (tests/processes.py), its database migrated."""
    return migrated_home(tmp_path, migrated_sqlite)


@pytest.fixture
def cast(db) -> Cast:
    """A company with one person in each role, an outsider with a company, an operator."""
    return make_cast()


@pytest.fixture(params=["en", "zh-hans", "zh-hant"])
def company_language(request, cast) -> str:
    """Each site language in turn as the cast company's own (the one its mail is written in)."""
    cast.company.original_language = request.param
    cast.company.save()
    return request.param


@pytest.fixture
def search_catalogue(db) -> Catalogue:
    """Six published listings (and a draft) in two category trees, indexed."""
    return build_catalogue()


@pytest.fixture
def request_board(db) -> dict:
    """Open, closed and cross-lingual buying requests, indexed."""
    return make_board()


@pytest.fixture
def fresh_matching_terms():
    """No cached matching of requests to products, before and after the test."""
    cache.clear()
    _local_terms.clear()
    yield
    cache.clear()
    _local_terms.clear()


@pytest.fixture(params=["database", "cache"])
def rate_limit_store(request, settings):
    """Both places the limits are counted in: the database (one machine) and the shared
    cache (Redis where REDIS_URL is set; the tests' memory cache behaves the same)."""
    settings.TRADEPOST_RATE_LIMIT_STORE = request.param
    cache.clear()
    yield request.param
    cache.clear()


RaceResults = list[Any]


@pytest.fixture
def race() -> Callable[..., RaceResults]:
    """Runs calls in threads released together, each on its own database connection; answers
    each call's value or the exception it raised (PostgreSQL: SQLite serialises writers)."""

    def run_together(*calls: Callable[[], Any]) -> RaceResults:
        barrier = threading.Barrier(len(calls))
        results: RaceResults = [None] * len(calls)

        def run(index: int, call: Callable[[], Any]) -> None:
            try:
                barrier.wait(timeout=10)
                results[index] = call()
            except Exception as error:  # the test inspects it
                results[index] = error
            finally:
                connections.close_all()

        threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        return results

    return run_together


@pytest.fixture
def smtp_server(settings):
    """Django sends mail through a real SMTP server; the handler keeps what it accepts."""
    handler = CollectingHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 10
    yield handler
    controller.stop()


@pytest.fixture
def original(cast) -> Product:
    """The cast company's published flask."""
    owner = cast.actor("owner")
    product = catalog_services.product_create(
        actor=owner, company=cast.company, **product_fields(title=FLASK)
    )
    return catalog_services.product_publish(actor=owner, product=product)


@pytest.fixture
def copy(cast) -> Product:
    """A draft of the same company reworded from the flask."""
    return catalog_services.product_create(
        actor=cast.actor("owner"), company=cast.company, **product_fields(title=FLASK_COPY)
    )

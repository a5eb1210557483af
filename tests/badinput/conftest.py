"""The suite's objects are built once, in a transaction that is rolled back when the suite ends;
each test runs in a savepoint inside it (pytest-django's usual per-test rollback), so every
test starts from the same stored state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client

from tests.badinput.web_cases import NEWCOMER, OPERATOR, OWNER, SHOWCASER
from tests.badinput.world import World, build_world
from tests.built_once import built_once


@pytest.fixture(scope="package")
def world(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[World]:
    with built_once(django_db_blocker, tmp_path_factory.mktemp("bad-input")):
        yield build_world()


# The project's per-test media and search index folders (conftest.py), replaced by the
# suite's own above: a thousand requests need not make a thousand folders.


@pytest.fixture(autouse=True)
def _isolated_media(world: World) -> None:
    pass


@pytest.fixture(autouse=True)
def _isolated_search_index(world: World) -> None:
    pass


@pytest.fixture(scope="package")
def http() -> Client:
    """One client for the suite (a new one loads every middleware again); each request sends
    its own credentials."""
    return Client()


@pytest.fixture(scope="package")
def sessions(world: World) -> dict[str, str]:
    """Session cookies of the test user, of the user without a company, of the operator and
    of a Gold supplier's owner."""
    cookies = {}
    people = (
        (OWNER, world.user),
        (NEWCOMER, world.newcomer),
        (OPERATOR, world.operator),
        (SHOWCASER, world.showcaser),
    )
    for actor, user in people:
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        cookies[actor] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return cookies

"""The marks of a test that races real connections (the `race` fixture of tests/conftest.py):
a transactional database, and PostgreSQL, since SQLite runs one write transaction at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from django.db import connection

Test = TypeVar("Test", bound=Callable[..., object])

ON_CONCURRENT_WRITERS = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="needs concurrent writers (PostgreSQL)"
    ),
]


def on_concurrent_writers(test: Test) -> Test:
    """The marks of ON_CONCURRENT_WRITERS on one test (a module takes the list as pytestmark)."""
    for mark in ON_CONCURRENT_WRITERS:
        test = mark(test)
    return test


def one_decision_wins(results: list[Any], refusal: type[Exception], decision: type) -> Any:
    """The refusal and the decision among raced calls where exactly one of two may decide:
    (the `refusal` raised, the `decision` answered); anything else fails the test."""
    refused = [r for r in results if isinstance(r, refusal)]
    decided = [r for r in results if isinstance(r, decision)]
    assert len(refused) == 1 and len(decided) == 1, results
    return refused[0], decided[0]

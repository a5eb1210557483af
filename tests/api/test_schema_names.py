"""One class per schema name: django-ninja makes one OpenAPI component of each class name, so
two classes of one name (three `CompanyRefOut`s did) leave one endpoint answering a shape the
schema does not describe (a review's companies lacked the `id` the component required)."""

from __future__ import annotations

from collections.abc import Iterator

from ninja import Schema

import tradepost.api.urls  # noqa: F401 - loads every router and its schemas
from tradepost.api.openapi import PROBLEM_SCHEMA


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_no_two_schemas_of_the_api_share_a_name():
    modules: dict[str, set[str]] = {}
    for cls in _subclasses(Schema):
        if cls.__module__.startswith("tradepost."):
            modules.setdefault(cls.__name__, set()).add(cls.__module__)
    shared = {name: sorted(found) for name, found in modules.items() if len(found) > 1}
    assert not shared, shared
    assert len(modules) > 50
    # Nor the name of the problem document's component, which the schema adds itself (an
    # import row's errors, {column, message}, were described as problem documents).
    assert PROBLEM_SCHEMA["title"] not in modules, modules[PROBLEM_SCHEMA["title"]]

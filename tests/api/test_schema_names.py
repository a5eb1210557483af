"""One class per schema name: django-ninja makes one OpenAPI component of each class name, so
two classes of one name (three `CompanyRefOut`s did) leave one endpoint answering a shape the
schema does not describe (a review's companies lacked the `id` the component required)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
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


def test_every_operation_has_a_short_hand_named_unique_id():
    from tradepost.api.operation_ids import OPERATION_IDS
    from tradepost.api.urls import api

    schema = api.get_openapi_schema()
    ids = [
        operation["operationId"]
        for methods in schema["paths"].values()
        for operation in methods.values()
    ]
    unnamed = [name for name in ids if name not in OPERATION_IDS.values()]
    assert not unnamed, f"name these in api/operation_ids.py: {unnamed}"
    assert len(ids) == len(set(ids)) == len(OPERATION_IDS)  # unique, none left over
    assert all(name[0].islower() and name.isalnum() and len(name) <= 32 for name in ids)


@pytest.mark.django_db
def test_problem_types_are_addresses_on_this_site_that_lead_to_the_docs(client, settings):
    answer = client.get("/api/v1/products/999999999")
    problem = answer.json()
    assert answer.status_code == 404
    assert problem["type"] == f"{settings.SITE_URL}/problems/not-found"
    followed = client.get("/problems/not-found")
    assert followed.status_code == 302 and followed["Location"] == "/api/v1/docs"


@pytest.mark.django_db
def test_the_fields_a_buying_request_needs_are_required_by_its_create_schema_only(client):
    from tradepost.api.urls import api

    schema = api.get_openapi_schema()
    components = schema["components"]["schemas"]

    def body(path: str, method: str) -> dict:
        content = schema["paths"][path][method]["requestBody"]["content"]
        reference = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        return components[reference]

    needed = {"title", "category_id", "quantity", "unit", "destination_country", "deadline"}
    assert set(body("/api/v1/requests", "post")["required"]) == needed
    assert not body("/api/v1/requests/{request_id}", "patch").get("required")

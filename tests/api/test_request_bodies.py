"""A JSON body is an object of fields, each of the JSON type the schema gives it: anything else
is refused as a problem document, and nothing is written (found by scripts/api_fuzz.py)."""

from __future__ import annotations

import json
import typing
from datetime import date, datetime
from decimal import Decimal

import pytest
from django.test import Client
from pydantic import BaseModel

from tests.factories.accounts import make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_request
from tradepost.accounts.tokens import token_create
from tradepost.api.bodies import JsonBody
from tradepost.api.urls import api
from tradepost.catalog.models import ProductTranslation
from tradepost.notify.models import Notification

pytestmark = pytest.mark.django_db

NOT_OBJECTS = ["[null, null]", '"AAA"', "[]", "7", "null", "true"]


def _send(user, method: str, path: str, raw: str):
    _token, secret = token_create(user=user, name="tests")
    return getattr(Client(), method)(
        path, raw, content_type="application/json", headers={"Authorization": f"Bearer {secret}"}
    )


def _refused_body(response) -> dict:
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == 422
    assert [error["field"] for error in body["errors"]] == ["body"]
    return body


@pytest.fixture
def supplier_product():
    owner = make_user()
    company = make_company(owner=owner)
    return owner, make_product(company=company, title="Wool blanket")


@pytest.mark.parametrize("raw", NOT_OBJECTS)
def test_a_change_that_is_not_an_object_changes_nothing(supplier_product, raw):
    owner, product = supplier_product
    before = product.updated_at
    _refused_body(_send(owner, "patch", f"/api/v1/me/products/{product.pk}", raw))
    product.refresh_from_db()
    assert product.updated_at == before


@pytest.mark.parametrize("raw", NOT_OBJECTS)
def test_a_translation_that_is_not_an_object_is_not_stored(supplier_product, raw):
    # "AAA" was stored as a translation titled "Aaa": the schema read the string's `title`.
    owner, product = supplier_product
    path = f"/api/v1/me/products/{product.pk}/translations/zh-hans"
    _refused_body(_send(owner, "put", path, raw))
    assert not ProductTranslation.objects.filter(product=product, language="zh-hans").exists()


def test_marking_notifications_read_needs_an_object():
    parties = make_parties()
    make_conversation(parties)
    user = parties.supplier_owner
    unread = Notification.objects.filter(recipient=user, read_at=None).count()
    assert unread
    _refused_body(_send(user, "post", "/api/v1/notifications/read", "[null, null]"))
    assert Notification.objects.filter(recipient=user, read_at=None).count() == unread
    # An object still works.
    marked = _send(user, "post", "/api/v1/notifications/read", json.dumps({}))
    assert marked.json() == {"marked": unread}


def test_a_body_that_is_not_json_is_a_400_problem(supplier_product):
    owner, product = supplier_product
    response = _send(owner, "patch", f"/api/v1/me/products/{product.pk}", "{not json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == 400 and body["type"].endswith("/invalid-json")


def test_the_refusal_is_in_the_clients_language(supplier_product):
    owner, product = supplier_product
    _token, secret = token_create(user=owner, name="tests")
    response = Client().patch(
        f"/api/v1/me/products/{product.pk}",
        "[]",
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}", "Accept-Language": "zh-hans"},
    )
    body = _refused_body(response)
    assert body["errors"][0]["message"] != "Send the fields as one JSON object."


# --- JSON types, not Python's coercions ---------------------------------------------------


def _refused_fields(response) -> list[str]:
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/problem+json"
    return [error["field"] for error in response.json()["errors"]]


@pytest.mark.parametrize("ids", [[False], [True], ["1"], "1"])
def test_notification_ids_are_json_integers(ids):
    # {"ids": [false]} was read as [0] and answered 200.
    parties = make_parties()
    make_conversation(parties)
    user = parties.supplier_owner
    unread = Notification.objects.filter(recipient=user, read_at=None).count()
    response = _send(user, "post", "/api/v1/notifications/read", json.dumps({"ids": ids}))
    assert _refused_fields(response)[0].startswith("ids")
    assert Notification.objects.filter(recipient=user, read_at=None).count() == unread


@pytest.mark.parametrize(
    ("field", "value"),
    [("lead_time_days", True), ("lead_time_days", "30"), ("category_id", False)],
)
def test_integer_fields_take_json_integers(supplier_product, field, value):
    owner, product = supplier_product
    before = product.updated_at
    path = f"/api/v1/me/products/{product.pk}"
    assert _refused_fields(_send(owner, "patch", path, json.dumps({field: value}))) == [field]
    product.refresh_from_db()
    assert product.updated_at == before


@pytest.mark.parametrize("moq", ["250", 250, 250.0])
def test_decimals_are_numbers_or_text(supplier_product, moq):
    owner, product = supplier_product
    path = f"/api/v1/me/products/{product.pk}"
    response = _send(owner, "patch", path, json.dumps({"moq": moq}))
    assert response.status_code == 200, response.content
    product.refresh_from_db()
    assert product.moq == Decimal("250")


def test_a_decimal_is_not_a_boolean(supplier_product):
    owner, product = supplier_product
    path = f"/api/v1/me/products/{product.pk}"
    assert _refused_fields(_send(owner, "patch", path, json.dumps({"moq": True}))) == ["moq"]


@pytest.mark.parametrize("value", [1, 0, "yes", "true"])
def test_booleans_are_true_or_false(value):
    buyer_request = make_request()
    buyer = buyer_request.created_by
    path = f"/api/v1/requests/{buyer_request.pk}"
    response = _send(buyer, "patch", path, json.dumps({"reveal_identity": value}))
    assert _refused_fields(response) == ["reveal_identity"]


@pytest.mark.parametrize("deadline", [1_900_000_000, 0, True])
def test_dates_are_iso_text(deadline):
    buyer_request = make_request()
    before = buyer_request.deadline
    path = f"/api/v1/requests/{buyer_request.pk}"
    response = _send(buyer_request.created_by, "patch", path, json.dumps({"deadline": deadline}))
    assert _refused_fields(response) == ["deadline"]
    buyer_request.refresh_from_db()
    assert buyer_request.deadline == before


def _models(annotation) -> typing.Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models(argument)


def _plain_types(annotation) -> typing.Iterator[type]:
    """The types in an annotation that are not wrapped in `Annotated` (no alias used)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return
    if isinstance(annotation, type):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _plain_types(argument)


def _json_bodies() -> typing.Iterator[type[BaseModel]]:
    for _prefix, router in api._routers:
        for path_view in router.path_operations.values():
            for operation in path_view.operations:
                for model in operation.models:
                    if model.__ninja_param_source__ == "body":
                        for field in model.model_fields.values():
                            yield from _models(field.annotation)


def test_every_json_body_is_read_as_json():
    seen: set[type[BaseModel]] = set()
    pending = list(_json_bodies())
    assert len(pending) >= 10
    while pending:
        schema = pending.pop()
        if schema in seen:
            continue
        seen.add(schema)
        assert issubclass(schema, JsonBody), f"{schema.__name__} does not derive from JsonBody"
        for name, field in schema.model_fields.items():
            # Strict Decimal, date and datetime would refuse the text JSON carries them in:
            # JsonDecimal, JsonDate and JsonDateTime read it.
            # (pydantic keeps a top-level alias's metadata beside the bare type.)
            relaxed = any(getattr(item, "strict", None) is False for item in field.metadata)
            plain = set() if relaxed else set(_plain_types(field.annotation))
            plain &= {Decimal, date, datetime}
            assert not plain, f"{schema.__name__}.{name}: use the JSON alias for {plain}"
            pending.extend(_models(field.annotation))


@pytest.mark.parametrize("keyed", [{}, {"Idempotency-Key": "form-1"}])
@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/api/v1/me/products"), ("patch", "/api/v1/me/products/{pk}")],
)
def test_a_form_sent_to_an_endpoint_that_reads_json_is_a_400_problem(
    supplier_product, method, path, keyed
):
    owner, product = supplier_product
    _token, secret = token_create(user=owner, name="tests")
    count = type(product).objects.count()
    response = getattr(Client(), method)(
        path.format(pk=product.pk),
        {"title": "Cashmere blanket", "moq": "10"},  # the test client sends multipart
        headers={"Authorization": f"Bearer {secret}", **keyed},
    )
    assert response.status_code == 400, response.content
    assert response.json()["type"].endswith("/not-json")
    product.refresh_from_db()
    assert product.title == "Wool blanket" and type(product).objects.count() == count

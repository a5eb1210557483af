"""Text no database can store is refused the same way on SQLite and PostgreSQL, before anything
is written: a NUL or an unpaired surrogate in a JSON body is a 422 naming the field; a NUL in the
path or a query parameter is a 400. Never a 500, never a half-written record."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.accounts import make_user
from tests.factories.catalog import leaf_category, make_product
from tests.factories.companies import make_company
from tests.factories.messaging import make_parties
from tradepost.accounts.tokens import token_create
from tradepost.catalog.models import Product
from tradepost.companies.models import Company
from tradepost.config.middleware import unstorable_fields
from tradepost.messaging.models import Conversation, Message

pytestmark = pytest.mark.django_db

SURROGATE_JSON = '"x\\ud800y"'  # a JSON string holding an unpaired surrogate
NUL_JSON = '"x\\u0000y"'


def _client(user) -> tuple[Client, dict[str, str]]:
    _token, secret = token_create(user=user, name="tests")
    return Client(), {"Authorization": f"Bearer {secret}"}


def _send(method: str, user, path: str, raw_json: str):
    client, headers = _client(user)
    send = getattr(client, method)
    return send(path, raw_json, content_type="application/json", headers=headers)


def _refused(response, field: str) -> None:
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == 422
    assert [error["field"] for error in body["errors"]] == [field]


@pytest.mark.parametrize("bad", [SURROGATE_JSON, NUL_JSON])
def test_product_create_and_update_refuse_unstorable_text(bad):
    owner = make_user()
    company = make_company(owner=owner)
    before = Product.objects.count()
    response = _send("post", owner, "/api/v1/me/products", f'{{"title": {bad}, "moq": 5}}')
    _refused(response, "title")
    assert Product.objects.count() == before
    product = make_product(company=company, title="Steel bar")
    response = _send(
        "patch",
        owner,
        f"/api/v1/me/products/{product.pk}",
        f'{{"attributes": [{{"name": "size", "value": {bad}}}]}}',
    )
    _refused(response, "attributes.0.value")
    product.refresh_from_db()
    assert product.attributes == []


@pytest.mark.parametrize("bad", [SURROGATE_JSON, NUL_JSON])
def test_company_profile_refuses_unstorable_text(bad):
    owner = make_user()
    company = make_company(owner=owner, city="Ningbo")
    response = _send("patch", owner, "/api/v1/me/company", f'{{"city": {bad}}}')
    _refused(response, "city")
    assert Company.objects.get(pk=company.pk).city == "Ningbo"


@pytest.mark.parametrize("bad", [SURROGATE_JSON, NUL_JSON])
def test_inquiries_and_messages_refuse_unstorable_text(bad):
    p = make_parties()
    conversations, messages = Conversation.objects.count(), Message.objects.count()
    response = _send(
        "post",
        p.buyer,
        "/api/v1/conversations/inquiries",
        f'{{"product_id": {p.product.pk}, "quantity": "10", "unit": "pieces", "message": {bad}}}',
    )
    _refused(response, "message")
    assert (Conversation.objects.count(), Message.objects.count()) == (conversations, messages)


def test_a_bad_key_is_named_without_its_bad_character():
    assert list(unstorable_fields({"a\x00b": 1, "ok": ["fine", {"deep": "x\ud800"}]})) == [
        "a?b",
        "ok.1.deep",
    ]
    assert list(unstorable_fields(["fine", 3, None, True])) == []


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/companies/a%00b",
        "/api/v1/products?category=a%00b",
        "/api/v1/products?company=a%00",
        "/api/v1/search/requests?destination=%00",
        "/api/v1/search/products?q=flask%00",
    ],
)
def test_a_nul_in_the_address_is_a_400_problem(client, url):
    response = client.get(url)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("url", ["/en/companies/a%00b/", "/en/search/?q=a%00b"])
def test_a_nul_in_a_page_address_is_a_400_page(client, url):
    assert client.get(url).status_code == 400


def test_ordinary_text_passes():
    owner = make_user()
    make_company(owner=owner)
    # A surrogate pair written as escapes is one ordinary character (😀).
    body = (
        '{"title": "不锈钢 \\u4fdd温杯 \\ud83d\\ude00", "moq": 5, "moq_unit": "pieces", '
        f'"category_id": {leaf_category().pk}}}'
    )
    response = _send("post", owner, "/api/v1/me/products", body)
    assert response.status_code == 201, response.content
    assert Product.objects.get(pk=response.json()["id"]).title == "不锈钢 保温杯 😀"


def test_the_refusal_is_in_the_clients_language():
    owner = make_user()
    make_company(owner=owner)
    client, headers = _client(owner)
    response = client.patch(
        "/api/v1/me/company",
        f'{{"city": {NUL_JSON}}}',
        content_type="application/json",
        headers={**headers, "Accept-Language": "zh-hans"},
    )
    assert response.status_code == 422
    assert "无法保存" in response.json()["errors"][0]["message"]

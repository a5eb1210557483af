"""GET /api/v1/requests/matching: open requests that match the caller's company's products."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.accounts import make_user
from tests.factories.catalog import make_category, make_product
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.tokens import token_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_matching_terms")]

URL = "/api/v1/requests/matching"


def _get(user=None, **params):
    headers = {}
    if user is not None:
        _token, secret = token_create(user=user, name="tests")
        headers = {"Authorization": f"Bearer {secret}"}
    return Client().get(URL, params, headers=headers)


def _setup():
    category = make_category(
        parent=make_category(), name_en="Pens", name_zh_hans="笔类", name_zh_hant="筆類"
    )
    user, company = make_trader()
    make_product(company=company, title="圆珠笔", category=category)
    return user, company, category


@pytest.mark.parametrize(
    ("language", "category_name"), [("en", "Pens"), ("zh-hans", "笔类"), ("zh-hant", "筆類")]
)
def test_matching_in_each_language(language, category_name):
    user, _company, category = _setup()
    match = make_request(title="Ballpoint pens", category_id=category.pk)
    make_request(title="Claw hammers", category_id=make_category().pk)
    response = _get(user, language=language)
    assert response.status_code == 200
    body = response.json()["items"]
    assert [item["request"]["id"] for item in body] == [match.pk]
    item = body[0]
    assert item["request"]["title"] == "Ballpoint pens"
    assert item["request"]["buyer"]["name"] is None  # identity still hidden
    assert any("圆珠笔" in reason for reason in item["reasons"])
    assert any(category_name in reason for reason in item["reasons"])
    assert item["product_id"] is not None
    assert item["already_quoted"] is False


def test_already_quoted_and_limit():
    user, _company, category = _setup()
    first = make_request(title="Ballpoint pens", category_id=category.pk)
    make_request(title="Ballpoint pens", category_id=category.pk)
    make_quotation(first, actor=user)
    body = _get(user).json()["items"]
    assert {item["request"]["id"]: item["already_quoted"] for item in body}[first.pk] is True
    page = _get(user, page_size=1).json()
    assert len(page["items"]) == 1 and page["count"] == 2 and page["next_page"] == 2


def test_own_requests_are_not_offered():
    user, _company, category = _setup()
    make_request(actor=user, title="Ballpoint pens", category_id=category.pk)
    assert _get(user).json()["items"] == []


def test_anonymous_and_companyless_callers_are_refused():
    assert _get().status_code == 401
    response = _get(make_user())
    assert response.status_code == 403
    assert response.json()["type"].endswith("no-company")


@pytest.mark.parametrize(
    "params",
    [{"page_size": 0}, {"page_size": 101}, {"page": "x"}, {"limit": 5}, {"language": "fr"}],
)
def test_bad_parameters_answer_422(params):
    user, _company, _category = _setup()
    assert _get(user, **params).status_code == 422


def test_query_count(django_assert_max_num_queries):
    user, _company, category = _setup()
    for _ in range(10):
        make_request(title="Ballpoint pens", category_id=category.pk)
    _, secret = token_create(user=user, name="tests")
    client = Client(headers={"Authorization": f"Bearer {secret}"})
    client.get(URL)
    with django_assert_max_num_queries(10):
        response = client.get(URL)
    assert len(response.json()["items"]) == 10

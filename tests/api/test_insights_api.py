"""GET /api/v1/me/insights: the supplier desk's numbers, the caller's own company only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api_client import ApiClient
from tests.factories.accounts import make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tradepost.insights.models import ProductViewDay, SearchWordDay

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/insights"


@pytest.fixture
def two_suppliers():
    today = timezone.localdate()
    mine_owner, mine = make_trader()
    theirs_owner, theirs = make_trader()
    for owner_company, views, word in ((mine, 4, "flask"), (theirs, 400, "secret")):
        product = make_product(company=owner_company)
        ProductViewDay.objects.create(
            product=product, company=owner_company, day=today, count=views
        )
        SearchWordDay.objects.create(company=owner_company, word=word, day=today, count=3)
    return mine_owner, mine, theirs_owner


def test_the_weeks_of_the_callers_company(two_suppliers):
    owner, company, _theirs = two_suppliers
    response = ApiClient(owner).get(URL)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["company_id"] == company.pk
    assert len(body["weeks"]) == 12
    monday = timezone.localdate() - timedelta(days=timezone.localdate().weekday())
    assert body["weeks"][-1]["week_start"] == monday.isoformat()
    assert sum(week["views"] for week in body["weeks"]) == 4
    assert body["weeks"][-1] == {
        "week_start": monday.isoformat(),
        "views": 4,
        "inquiries": 0,
        "quotations_sent": 0,
        "quotations_won": 0,
        "asks": 0,
        "response_rate": None,
        "median_first_response_hours": None,
    }
    assert body["top_search_words"] == [{"word": "flask", "impressions": 3}]


def test_another_company_sees_only_its_own(two_suppliers):
    _owner, company, theirs = two_suppliers
    body = ApiClient(theirs).get(URL, company_id=company.pk).json()
    assert body["company_id"] != company.pk
    assert sum(week["views"] for week in body["weeks"]) == 400
    assert [word["word"] for word in body["top_search_words"]] == ["secret"]


def test_weeks_can_be_asked_for_within_bounds(two_suppliers):
    owner, _company, _theirs = two_suppliers
    client = ApiClient(owner)
    assert len(client.get(URL, weeks=4).json()["weeks"]) == 4
    assert len(client.get(URL, weeks=52).json()["weeks"]) == 52
    for bad in (0, 53, "x"):
        response = client.get(URL, weeks=bad)
        assert response.status_code == 422
        assert response["Content-Type"].startswith("application/problem+json")


def test_a_token_is_needed_and_a_company(two_suppliers):
    assert ApiClient().get(URL).status_code == 401
    response = ApiClient(make_user()).get(URL)
    assert response.status_code == 403
    assert response.json()["type"].endswith("/no-company")


def test_the_endpoint_is_in_the_schema():
    schema = ApiClient().get("/api/v1/openapi.json").json()
    operation = schema["paths"][URL]["get"]
    assert {p["name"] for p in operation["parameters"] if p["in"] == "query"} == {"weeks"}
    assert {"401", "403", "404", "422"} <= set(map(str, operation["responses"]))

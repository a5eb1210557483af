"""The public products API gives each price converted into a currency asked for with
`?currency=` (issue #13, one display currency), beside the listed one."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from tests.factories.catalog import make_product
from tradepost.money.models import ExchangeRate
from tradepost.money.rates import forget_rates

pytestmark = pytest.mark.django_db

AS_OF = date(2026, 11, 30)


@pytest.fixture(autouse=True)
def rates():
    ExchangeRate.objects.exclude(currency__in=("USD", "EUR", "JPY")).delete()
    for code, rate in (("USD", "1"), ("EUR", "1.25"), ("JPY", "0.0068")):
        ExchangeRate.objects.update_or_create(
            currency=code, defaults={"rate_to_usd": Decimal(rate), "as_of": AS_OF}
        )
    forget_rates()
    yield
    forget_rates()


def terms(client, product, **query):
    response = client.get(f"/api/v1/products/{product.pk}", query)
    assert response.status_code == 200, response.content
    return response.json()["terms"]


def test_a_price_converted_beside_the_listed_one(client):
    product = make_product()  # US$2.50–3.80
    body = terms(client, product, currency="EUR")
    assert (body["price_min"], body["price_max"], body["currency"]) == ("2.50", "3.80", "USD")
    assert body["converted"] == {
        "price_min": "2.00",
        "price_max": "3.04",
        "currency": "EUR",
        "rates_as_of": "2026-11-30",
    }
    yen = terms(client, product, currency="jpy")["converted"]
    assert (yen["price_min"], yen["price_max"], yen["currency"]) == ("368", "559", "JPY")


def test_the_list_converts_each_product(client):
    make_product(currency="EUR", price_min=Decimal("8"), price_max=None)
    make_product()
    items = client.get("/api/v1/products", {"currency": "EUR"}).json()["items"]
    converted = {item["terms"]["currency"]: item["terms"]["converted"] for item in items}
    assert converted["EUR"] is None  # already in euros
    assert converted["USD"]["price_min"] == "2.00"


def test_nothing_converted_without_the_parameter_the_price_or_a_rate(client):
    assert terms(client, make_product())["converted"] is None
    no_price = make_product(price_min=None, price_max=None)
    assert terms(client, no_price, currency="EUR")["converted"] is None
    no_rate = make_product(currency="MNT", price_min=Decimal("9000"), price_max=None)
    assert terms(client, no_rate, currency="EUR")["converted"] is None


@pytest.mark.parametrize("value", ["XYZ", "CHF", "EURO", "E%00R", "listed", "%3Cb%3E"])
def test_a_currency_without_a_rate_is_a_422_problem(client, value):
    product = make_product()
    for path in (f"/api/v1/products/{product.pk}", "/api/v1/products"):
        response = client.get(f"{path}?currency={value}")
        assert response.status_code in (400, 422), (path, value, response.status_code)
        assert response["Content-Type"].startswith("application/problem+json")


def test_the_refusal_names_the_parameter(client):
    response = client.get("/api/v1/products", {"currency": "XYZ"})
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [error["field"] for error in errors] == ["currency"]
    assert "Not a currency this site knows" in errors[0]["message"]


def test_the_parameter_is_in_the_schema(client):
    schema = client.get("/api/v1/openapi.json").json()
    for path in ("/api/v1/products", "/api/v1/products/{product_id}"):
        names = [p["name"] for p in schema["paths"][path]["get"]["parameters"]]
        assert "currency" in names
    assert "converted" in schema["components"]["schemas"]["PublicTerms"]["properties"]

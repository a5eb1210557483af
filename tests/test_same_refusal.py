"""Forms and bodies only parse; services validate (docs/adr/0020-one-input-layer.md): the same
hostile value sent through the web form and through the API is refused by the service with the
same message, on the same field, in the same language."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.api_client import ApiClient
from tests.factories.catalog import leaf_category
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_request
from tests.pages import log_in, page_url
from tradepost.catalog.models import Product
from tradepost.companies.models import Company
from tradepost.sourcing.models import BuyingRequest, Quotation

pytestmark = pytest.mark.django_db

LONG = "x" * 5000


def _request_form(**overrides):
    data = {
        "title": "Ceramic mugs",
        "original_language": "en",
        "category_id": str(leaf_category().pk),
        "description": "<p>White</p>",
        "quantity": "2000",
        "unit": "pieces",
        "target_currency": "",
        "destination_country": "DE",
        "preferred_incoterm": "FOB",
        "required_certifications": "CE",
        "deadline": (timezone.localdate() + timedelta(days=10)).isoformat(),
    }
    return {**data, **overrides}


def _product_form(**overrides):
    data = {
        "title": "Bamboo cutting board",
        "original_language": "en",
        "category_id": str(leaf_category().pk),
        "description": "<p>Solid bamboo.</p>",
        "moq": "200",
        "moq_unit": "pieces",
        "price_min": "1.20",
        "price_max": "1.80",
        "currency": "USD",
        "incoterms": ["FOB"],
        "payment_terms": ["tt"],
        "lead_time_days": "25",
        "origin_country": "CN",
    }
    return {**data, **overrides}


def _quotation_form(**overrides):
    data = {
        "unit_price": "2.30",
        "currency": "USD",
        "moq": "1000",
        "lead_time_days": "30",
        "incoterm": "FOB",
        "named_place": "Ningbo",
        "payment_terms": ["tt"],
        "valid_until": (timezone.localdate() + timedelta(days=30)).isoformat(),
        "message": "We make these every day.",
        "tiers-TOTAL_FORMS": "0",
        "tiers-INITIAL_FORMS": "0",
    }
    return {**data, **overrides}


def _company_form(**overrides):
    data = {
        "legal_name": "Ningbo Flask Works Co., Ltd.",
        "english_name": "Ningbo Flask Works",
        "country": "CN",
        "business_types": ["manufacturer"],
        "original_language": "en",
        "province": "Zhejiang",
        "city": "Ningbo",
        "employee_range": "51-200",
        "main_markets": ["western_europe"],
        "main_products": "Vacuum flasks",
        "certifications": "ISO 9001, BSCI",
        "website": "https://example.com",
    }
    return {**data, **overrides}


def _api_body(form: dict) -> dict:
    """The form's values as the API takes them (lists stay lists; ids are numbers)."""
    body = {name: value for name, value in form.items() if not name.startswith("tiers-")}
    if "category_id" in body:
        body["category_id"] = int(body["category_id"])
    if isinstance(body.get("required_certifications"), str):
        body["required_certifications"] = [body["required_certifications"]]
    if isinstance(body.get("certifications"), str):
        body["certifications"] = [name.strip() for name in body["certifications"].split(",")]
    if "lead_time_days" in body and body["lead_time_days"].lstrip("-").isdigit():
        body["lead_time_days"] = int(body["lead_time_days"])
    return {name: value for name, value in body.items() if value != ""}


def _form_errors(response) -> dict[str, list[str]]:
    form = response.context["form"]
    return {name: [str(m) for m in messages] for name, messages in form.errors.items()}


def _api_errors(response) -> dict[str, list[str]]:
    assert response.status_code == 422, response.content
    found: dict[str, list[str]] = {}
    for item in response.json()["errors"]:
        found.setdefault(item["field"], []).append(item["message"])
    return found


#: (use case, web page, API path, the form's valid values, field, hostile value)
CASES = [
    ("request", "sourcing:create", "/api/v1/requests", _request_form, "title", LONG),
    ("request", "sourcing:create", "/api/v1/requests", _request_form, "quantity", "-5"),
    ("request", "sourcing:create", "/api/v1/requests", _request_form, "destination_port", LONG),
    ("request", "sourcing:create", "/api/v1/requests", _request_form, "unit", "boxes of mugs"),
    (
        "quotation",
        "sourcing:quote",
        "/api/v1/requests/{id}/quotations",
        _quotation_form,
        "named_place",
        LONG,
    ),
    (
        "quotation",
        "sourcing:quote",
        "/api/v1/requests/{id}/quotations",
        _quotation_form,
        "unit_price",
        "-2",
    ),
    (
        "quotation",
        "sourcing:quote",
        "/api/v1/requests/{id}/quotations",
        _quotation_form,
        "currency",
        "XXX",
    ),
    (
        "quotation",
        "sourcing:quote",
        "/api/v1/requests/{id}/quotations",
        _quotation_form,
        "incoterm",
        "FOBB",
    ),
    (
        "quotation",
        "sourcing:quote",
        "/api/v1/requests/{id}/quotations",
        _quotation_form,
        "message",
        LONG * 4,
    ),
    ("product", "products:create", "/api/v1/me/products", _product_form, "title", LONG),
    ("product", "products:create", "/api/v1/me/products", _product_form, "moq", "-1"),
    ("product", "products:create", "/api/v1/me/products", _product_form, "lead_time_days", "-3"),
    ("product", "products:create", "/api/v1/me/products", _product_form, "price_max", "-3"),
    ("product", "products:create", "/api/v1/me/products", _product_form, "currency", "XXX"),
    (
        "product",
        "products:create",
        "/api/v1/me/products",
        _product_form,
        "moq_unit",
        "sacks of rice",
    ),
]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(
    ("case", "page", "path", "form", "field", "value"),
    CASES,
    ids=[f"{case[0]}-{case[4]}-{len(case[5])}" for case in CASES],
)
def test_the_form_and_the_api_get_the_same_refusal(case, page, path, form, field, value, language):
    user, _company = make_trader(country="NL")
    data = form(**{field: value})
    ids = {}
    if case == "quotation":
        buying_request = make_request()
        ids, path = {"pk": buying_request.pk}, path.format(id=buying_request.pk)
    web = log_in(Client(), user).post(page_url(page, language, **ids), data)
    assert web.status_code in (200, 400)
    api = ApiClient(user)
    api.client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    answered = api.post(path, _api_body(data))
    assert _form_errors(web).get(field) == _api_errors(answered).get(field)
    assert _form_errors(web).get(field), "the value was not refused at all"
    assert not Quotation.objects.exists() and not Product.objects.exists()
    assert BuyingRequest.objects.count() == (1 if case == "quotation" else 0)


#: The company profile: its page and PATCH /api/v1/me/company. (field, hostile value)
COMPANY_CASES = [
    ("legal_name", LONG),
    ("english_name", LONG),
    ("province", LONG),
    ("city", LONG),
    ("main_products", LONG),
    ("website", LONG),
    ("certifications", "ISO 9001, " + "x" * 100),
    ("country", "ZZ"),
    ("original_language", "tlh"),
    ("employee_range", "a-million"),
    ("business_types", ["pirate"]),
    ("main_markets", ["mars"]),
]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(
    ("field", "value"),
    COMPANY_CASES,
    ids=[f"company-{field}-{len(value)}" for field, value in COMPANY_CASES],
)
def test_the_company_profile_page_and_the_api_get_the_same_refusal(field, value, language):
    user, company = make_trader(country="NL")
    before = Company.objects.filter(pk=company.pk).values().get()
    data = _company_form(**{field: value})
    web = log_in(Client(), user).post(page_url("companies:profile", language), data)
    assert web.status_code == 400
    api = ApiClient(user)
    api.client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    answered = api.patch("/api/v1/me/company", _api_body(data))
    assert _form_errors(web).get(field) == _api_errors(answered).get(field)
    assert _form_errors(web).get(field), "the value was not refused at all"
    assert Company.objects.filter(pk=company.pk).values().get() == before

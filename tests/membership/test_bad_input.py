"""Bad input gets a clear refusal, never a 500 and never half a record: unknown plans,
another company's invoice, values too long, NUL bytes, wrong JSON types, pages past the end.
Also: the billing form, its API body and the service take the same names (ADR 0020)."""

from __future__ import annotations

import inspect
from typing import Unpack, get_args, get_origin, get_type_hints

import pytest

from tests.api_client import ApiClient
from tests.factories.companies import make_trader
from tests.factories.membership import gold, subscribe
from tests.pages import log_in, page_url
from tradepost.api.membership import BillingWrite
from tradepost.membership import services
from tradepost.membership.forms import BillingForm
from tradepost.membership.models import BillingDetails, Subscription

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_api(cast):
    return ApiClient(cast.owner, base="/api/v1")


def test_the_billing_form_body_and_service_agree():
    assert set(BillingForm.base_fields) == services.BILLING_FIELDS
    assert set(BillingWrite.model_fields) == services.BILLING_FIELDS
    signature = inspect.signature(services.billing_details_set)
    fields = signature.parameters["fields"]
    assert fields.kind is inspect.Parameter.VAR_KEYWORD
    hint = get_type_hints(services.billing_details_set)["fields"]
    assert get_origin(hint) is Unpack and get_args(hint) == (services.BillingFields,)


@pytest.mark.parametrize(
    ("plan_id", "status"),
    [
        (999999, 404),
        (-1, 404),
        (0, 404),
        (2**63, 404),
        (None, 422),
        ("999999", 422),
        ("abc", 422),
        (True, 422),
        (1.5, 422),
        ([1], 422),
    ],
)
def test_an_unknown_plan_is_not_found_and_a_wrong_type_invalid(owner_api, plan_id, status):
    answer = owner_api.post("/me/subscription", {"action": "subscribe", "plan_id": plan_id})
    assert answer.status_code == status, answer.content
    assert not Subscription.objects.exists()


def test_an_unknown_plan_page_is_404(client, cast):
    log_in(client, cast.owner)
    assert client.get(page_url("membership:change", plan_id=999999)).status_code == 404
    assert client.post(page_url("membership:change", plan_id=999999)).status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"action": "renew", "plan_id": 1},
        {"action": 5},
        {"action": None},
        {},
        {"action": "subscribe", "plan_id": "1"},
    ],
)
def test_wrong_types_are_422(owner_api, body):
    answer = owner_api.post("/me/subscription", body)
    assert answer.status_code == 422, answer.content
    assert answer["Content-Type"] == "application/problem+json"


def test_a_body_that_is_not_an_object_is_refused(cast):
    api = ApiClient(cast.owner, base="/api/v1")
    answer = api.client.post(
        "/api/v1/me/subscription", "[1, 2]", content_type="application/json", headers=api.headers
    )
    assert answer.status_code in (400, 422)


def test_another_companys_invoice_is_404(client, cast):
    outsider_invoice = subscribe(cast.other_company, gold(), actor=cast.outsider).invoice
    api = ApiClient(cast.owner, base="/api/v1")
    assert api.get(f"/me/invoices/{outsider_invoice.pk}").status_code == 404
    assert api.get("/me/invoices/999999").status_code == 404
    log_in(client, cast.owner)
    page = client.get(page_url("membership:invoice", invoice_id=outsider_invoice.pk))
    assert page.status_code == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("legal_name", "x" * 201),
        ("tax_id", "9" * 51),
        ("address", "a" * 501),
        ("country", "XX"),
        ("email", "not an address"),
        ("legal_name", "<script>"),
        ("legal_name", ""),
    ],
)
def test_billing_values_are_checked_and_nothing_is_half_saved(
    cast, owner_api, client, field, value
):
    body = {"legal_name": "Acme Ltd", "country": "CN", field: value}
    answer = owner_api.put("/me/subscription/billing", body)
    assert answer.status_code == 422, answer.content
    assert [error["field"] for error in answer.json()["errors"]] == [field]
    log_in(client, cast.owner)
    page = client.post(page_url("membership:billing"), body)
    assert page.status_code == 400
    assert not BillingDetails.objects.exists()


def test_billing_values_of_the_wrong_json_type_are_422(owner_api):
    for body in ({"legal_name": 5}, {"country": ["CN"]}, {"tax_id": None}):
        assert owner_api.put("/me/subscription/billing", body).status_code == 422
    assert not BillingDetails.objects.exists()


def test_nul_bytes_never_reach_the_database(cast, owner_api):
    body = {"legal_name": "Acme\x00 Ltd", "country": "CN", "address": "Road\x001"}
    answer = owner_api.put("/me/subscription/billing", body)
    assert answer.status_code in (200, 400, 422)
    for details in BillingDetails.objects.all():
        assert "\x00" not in details.legal_name + details.address


def test_pages_past_the_end(cast, client):
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner)
    api = ApiClient(owner, base="/api/v1")
    answer = api.get("/me/invoices", page=999)
    assert answer.status_code == 200 and answer.json()["items"] == []
    assert answer.json()["count"] == 1
    assert api.get("/me/invoices", page=0).status_code == 422
    assert api.get("/me/invoices", page="x").status_code == 422
    assert api.get("/plans", page=999).json()["items"] == []
    log_in(client, owner)
    assert client.get(page_url("membership:overview") + "?page=999").status_code == 200
    log_in(client, cast.operator)
    assert client.get(page_url("membership:payments") + "?page=abc").status_code == 200

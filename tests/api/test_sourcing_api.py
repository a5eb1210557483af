"""/api/v1/requests: buying requests and quotations through HTTP."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from tests.api_client import ApiClient
from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import leaf_category
from tests.factories.companies import add_member, make_trader
from tests.factories.sourcing import make_quotation, make_quoted_request, make_request
from tradepost.companies.models import Role
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, RequestStatus

pytestmark = pytest.mark.django_db

BASE = "/api/v1/requests"


Api = partial(ApiClient, base=BASE)  # one user's bearer token, paths below BASE


def _request_body(**overrides):
    body = {
        "title": "LED panel lights 600x600",
        "description": "<p>40 W</p><script>alert(1)</script>",
        "category_id": leaf_category().pk,
        "quantity": "3000",
        "unit": "pieces",
        "destination_country": "DE",
        "preferred_incoterm": "CIF",
        "required_certifications": ["CE"],
        "deadline": (timezone.now() + timedelta(days=10)).isoformat(),
    }
    body.update(overrides)
    return body


def _quote_body(**overrides):
    body = {
        "unit_price": "7.5",
        "currency": "USD",
        "price_tiers": [{"min_quantity": "5000", "unit_price": "7.1"}],
        "moq": "500",
        "lead_time_days": 25,
        "incoterm": "FOB",
        "named_place": "Shenzhen",
        "payment_terms": ["tt"],
        "valid_until": (timezone.localdate() + timedelta(days=20)).isoformat(),
    }
    body.update(overrides)
    return body


def test_create_and_read_request_hides_buyer_until_revealed():
    buyer, company = make_trader(country="NL")
    response = Api(buyer).post("", _request_body())
    assert response.status_code == 201, response.content
    data = response.json()
    assert "<script>" not in data["description"]
    assert data["buyer"]["company_id"] == company.pk  # the buyer sees itself
    public = Api().get(f"/{data['id']}").json()
    assert public["buyer"] == {
        "country": "NL",
        "business_types": ["manufacturer"],
        "company_id": None,
        "name": None,
    }
    listing = Api().get("", destination="DE").json()
    assert [item["id"] for item in listing["items"]] == [data["id"]]


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"deadline": "2001-01-01T00:00:00Z"}, "deadline"),
        ({"quantity": "-1"}, "quantity"),
        ({"target_currency": "ABC", "target_unit_price": "1"}, "target_currency"),
        ({"title": "<script>alert(1)</script>"}, "title"),
        ({"quantity": "lots"}, "quantity"),
        ({"category_id": 987654321}, "category_id"),
    ],
)
def test_create_request_bad_input_is_422_and_saves_nothing(overrides, field):
    buyer, _company = make_trader()
    response = Api(buyer).post("", _request_body(**overrides))
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert field in {error["field"] for error in response.json()["errors"]}
    assert BuyingRequest.objects.count() == 0


def test_anonymous_cannot_write():
    assert Api().post("", _request_body()).status_code == 401
    request = make_request()
    assert Api().post(f"/{request.pk}/quotations", _quote_body()).status_code == 401
    assert Api().get(f"/{request.pk}/quotations").status_code == 401


def test_quotation_flow_and_award():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, supplier_company = make_trader()
    other, _other_company = make_trader()
    sent = Api(supplier).post(f"/{request.pk}/quotations", _quote_body())
    assert sent.status_code == 201, sent.content
    quotation_id = sent.json()["id"]
    Api(other).post(f"/{request.pk}/quotations", _quote_body(currency="CNY", unit_price="60"))

    comparison = Api(buyer).get(f"/{request.pk}/quotations", currency="USD", sort="price")
    assert comparison.status_code == 200
    items = comparison.json()["items"]
    # 7.5 USD sorts before 60 CNY (about 8.37 USD)
    assert items[0]["id"] == quotation_id
    assert comparison.json()["rates_as_of"] == "2025-06-30"

    assert Api(supplier).get("/quotations/mine").json()["items"][0]["id"] == quotation_id
    assert Api(buyer).post(f"/quotations/{quotation_id}/shortlist").json()["status"] == (
        "shortlisted"
    )
    awarded = Api(buyer).post(f"/quotations/{quotation_id}/award")
    assert awarded.status_code == 200
    assert awarded.json()["status"] == "awarded"
    again = Api(buyer).post(f"/quotations/{quotation_id}/award")
    assert again.status_code == 409
    request.refresh_from_db()
    assert request.status == RequestStatus.AWARDED
    assert Quotation.objects.exclude(supplier=supplier_company).get().status == "not_selected"


def test_supplier_never_sees_another_suppliers_quotation():
    _buyer, request, (mine, theirs) = make_quoted_request({}, {})
    api = Api(mine.created_by)
    missing = api.get("/quotations/999999")
    for response in (
        api.get(f"/quotations/{theirs.pk}"),
        api.get(f"/{request.pk}/quotations"),
        api.post(f"/quotations/{theirs.pk}/decline", {"reason": "x"}),
        api.post(f"/quotations/{theirs.pk}/award"),
        api.patch(f"/{request.pk}", {"title": "Mine now"}),
        api.post(f"/{request.pk}/close"),
    ):
        assert response.status_code == 404
        assert response.json()["type"] == missing.json()["type"]
    request.refresh_from_db()
    theirs.refresh_from_db()
    assert request.status == RequestStatus.OPEN and request.title != "Mine now"
    assert theirs.status == QuotationStatus.SUBMITTED
    assert {q["id"] for q in api.get("/quotations/mine").json()["items"]} != {theirs.pk}


@pytest.mark.parametrize(
    ("who", "allowed"),
    [
        ("anonymous", False),
        ("other_company", False),
        ("operator", False),
        ("member", True),
        ("admin", True),
        ("owner", True),
    ],
)
def test_close_permission_matrix(who, allowed):
    owner, company = make_trader(country="NL")
    request = make_request(actor=owner)
    user = {
        "anonymous": None,
        "other_company": make_trader()[0],
        "operator": make_operator(),
        "member": add_member(company, role=Role.MEMBER),
        "admin": add_member(company, role=Role.ADMIN),
        "owner": owner,
    }[who]
    response = Api(user).post(f"/{request.pk}/close")
    request.refresh_from_db()
    if allowed:
        assert response.status_code == 200
        assert request.status == RequestStatus.CLOSED
    else:
        assert response.status_code in (401, 404)
        assert request.status == RequestStatus.OPEN


def test_full_request_and_own_request_answer_clearly():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    BuyingRequest.objects.filter(pk=request.pk).update(quote_limit=1)
    own = Api(buyer).post(f"/{request.pk}/quotations", _quote_body())
    assert own.status_code == 403
    make_quotation(request)
    late, _c = make_trader()
    full = Api(late).post(f"/{request.pk}/quotations", _quote_body())
    assert full.status_code == 409
    assert full.json()["type"].endswith("request-full")


def test_update_after_quotes_only_description_and_deadline():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    make_quotation(request)
    api = Api(buyer)
    assert api.patch(f"/{request.pk}", {"quantity": "1"}).status_code == 409
    later = (request.deadline + timedelta(days=2)).isoformat()
    ok = api.patch(f"/{request.pk}", {"description": "<p>More</p>", "deadline": later})
    assert ok.status_code == 200, ok.content
    assert ok.json()["description"] == "<p>More</p>"


def test_sealed_count_is_null_for_others():
    request = make_request(sealed=True)
    make_quotation(request)
    assert Api(make_user()).get(f"/{request.pk}").json()["quotation_count"] is None
    assert Api(request.created_by).get(f"/{request.pk}").json()["quotation_count"] == 1


def test_closed_request_is_404_for_strangers():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    Api(buyer).post(f"/{request.pk}/close")
    assert Api().get(f"/{request.pk}").status_code == 404
    assert Api(buyer).get(f"/{request.pk}").status_code == 200


def test_bad_quotation_input_is_422():
    request = make_request()
    supplier, _c = make_trader()
    for body in (
        _quote_body(currency="QQQ"),
        _quote_body(unit_price="-3"),
        _quote_body(lead_time_days="soon"),
        _quote_body(valid_until="not-a-date"),
    ):
        response = Api(supplier).post(f"/{request.pk}/quotations", body)
        assert response.status_code == 422, body
    request.refresh_from_db()
    assert request.quotation_count == 0


def test_board_query_count(django_assert_max_num_queries):
    for _ in range(5):
        make_request()
    with django_assert_max_num_queries(6):
        response = Api().get("")
    assert response.json()["count"] == 5


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _upload(api, path, data=PDF, name="drawing.pdf"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return api.client.post(
        BASE + path,
        {"file": SimpleUploadedFile(name, data, "application/pdf")},
        headers=api.headers,
    )


def test_attachments_through_the_api():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    supplier, _c = make_trader()
    quotation = make_quotation(request, actor=supplier)
    added = _upload(Api(buyer), f"/{request.pk}/attachments")
    assert added.status_code == 201, added.content
    assert Api().get(f"/{request.pk}/attachments").json()[0]["name"] == "drawing.pdf"
    assert Api().get(f"/attachments/{added.json()['id']}").status_code == 200

    bad = _upload(Api(buyer), f"/{request.pk}/attachments", data=b"<script>", name="x.pdf")
    assert bad.status_code == 422
    assert _upload(Api(supplier), f"/{request.pk}/attachments").status_code == 404

    theirs = _upload(Api(supplier), f"/quotations/{quotation.pk}/attachments")
    assert theirs.status_code == 201
    file_id = theirs.json()["id"]
    assert Api(buyer).get(f"/attachments/{file_id}").status_code == 200
    assert Api(make_trader()[0]).get(f"/attachments/{file_id}").status_code == 404
    assert Api().get(f"/attachments/{file_id}").status_code == 404
    assert Api(buyer).get(f"/quotations/{quotation.pk}/attachments").json()[0]["id"] == file_id


def test_board_query_count_for_a_signed_in_supplier(django_assert_max_num_queries):
    for _ in range(3):
        make_request(sealed=True)
    supplier, _c = make_trader()
    api = Api(supplier)
    with django_assert_max_num_queries(8):
        few = api.get("")
    for _ in range(6):
        make_request()
    with django_assert_max_num_queries(8):
        many = api.get("")
    assert few.json()["count"] == 3 and many.json()["count"] == 9
    assert {item["quotation_count"] for item in few.json()["items"]} == {None}


@pytest.mark.parametrize(
    ("who", "allowed"),
    [
        ("anonymous", False),
        ("other_company", False),
        ("quoting_supplier", False),
        ("operator", False),
        ("member", True),
        ("admin", True),
        ("owner", True),
    ],
)
def test_update_and_award_permission_matrix(who, allowed):
    owner, company = make_trader(country="NL")
    request = make_request(actor=owner)
    supplier, _c = make_trader()
    quotation = make_quotation(request, actor=supplier)
    user = {
        "anonymous": None,
        "other_company": make_trader()[0],
        "quoting_supplier": supplier,
        "operator": make_operator(),
        "member": add_member(company, role=Role.MEMBER),
        "admin": add_member(company, role=Role.ADMIN),
        "owner": owner,
    }[who]
    api = Api(user)
    patched = api.patch(f"/{request.pk}", {"description": "<p>Changed</p>"})
    awarded = api.post(f"/quotations/{quotation.pk}/award")
    request.refresh_from_db()
    quotation.refresh_from_db()
    if allowed:
        assert (patched.status_code, awarded.status_code) == (200, 200)
        assert request.status == RequestStatus.AWARDED
        assert request.description == "<p>Changed</p>"
    else:
        assert patched.status_code in (401, 404)
        assert awarded.status_code in (401, 404)
        assert request.status == RequestStatus.OPEN
        assert request.description != "<p>Changed</p>"
        assert quotation.status == QuotationStatus.SUBMITTED

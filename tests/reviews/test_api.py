"""The reviews API: the buyer's review of an award, a company's reviews (public, paged as every
list), one review, the supplier's reply, the operators' hide and restore; who may do what, as
problem documents in the client's language."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.companies import make_trader
from tests.factories.reviews import make_award, review_fields
from tests.factories.sourcing import make_quotation, make_request
from tradepost.audit.models import AuditEntry
from tradepost.reviews import services
from tradepost.reviews.models import Review

pytestmark = pytest.mark.django_db


def _review_path(quotation) -> str:
    return f"/api/v1/requests/quotations/{quotation.pk}/review"


def _list_path(company) -> str:
    return f"/api/v1/companies/{company.slug}/reviews"


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        ("anonymous", 401, "unauthenticated"),
        ("owner", 201, None),
        ("member", 201, None),
        ("outsider", 404, "not-found"),
        ("loner", 404, "not-found"),
        ("operator", 404, "not-found"),
        ("supplier_owner", 403, "review-own-company"),
    ],
)
def test_who_may_review_an_award(award, who, status, code):
    response = ApiClient(award.user(who)).post(
        _review_path(award.quotation), {"rating": 4, "text": "On time, well packed."}
    )
    assert response.status_code == status, response.content
    if status == 201:
        body = response.json()
        assert body["rating"] == 4 and body["text"] == "On time, well packed."
        assert body["supplier"] == {
            "id": award.supplier.pk,
            "slug": award.supplier.slug,
            "name": award.supplier.name_for("en"),
        }
        assert body["buyer"]["slug"] == award.cast.company.slug
        assert body["reply"] == "" and body["status"] == "published"
    else:
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["type"].endswith(code)
        assert Review.objects.count() == 0


def test_not_awarded_and_twice_are_conflicts(award):
    client = ApiClient(award.cast.owner)
    supplier, _company = make_trader()
    open_quotation = make_quotation(make_request(actor=award.cast.owner), actor=supplier)
    not_awarded = client.post(_review_path(open_quotation), review_fields())
    assert not_awarded.status_code == 409
    assert not_awarded.json()["type"].endswith("review-not-awarded")
    assert client.post(_review_path(award.quotation), review_fields()).status_code == 201
    twice = client.post(_review_path(award.quotation), review_fields(rating=1))
    assert twice.status_code == 409 and twice.json()["type"].endswith("review-exists")
    assert Review.objects.count() == 1


def test_bad_fields_are_named_in_the_clients_language(award):
    client = ApiClient(award.cast.owner)
    client.client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    response = client.post(_review_path(award.quotation), {"rating": 7, "text": ""})
    assert response.status_code == 422
    problem = response.json()
    assert {error["field"] for error in problem["errors"]} == {"rating", "text"}
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in e["message"]) for e in problem["errors"])
    wrong_type = client.post(_review_path(award.quotation), {"rating": "5", "text": "x"})
    assert wrong_type.status_code == 422  # a JSON body is read as JSON types
    assert Review.objects.count() == 0


def test_a_companys_reviews_are_public_and_paged(award):
    services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    for rating in (5, 3):
        buyer, _supplier, quotation = make_award(supplier=award.supplier_owner)
        services.review_create(actor=buyer, quotation=quotation, rating=rating, text="Fine.")
    anonymous = ApiClient()
    page = anonymous.get(_list_path(award.supplier), page_size=2).json()
    assert page["count"] == 3 and page["next_page"] == 2 and page["previous_page"] is None
    assert [item["rating"] for item in page["items"]] == [3, 5]  # newest first
    last = anonymous.get(_list_path(award.supplier), page=2, page_size=2).json()
    assert [item["rating"] for item in last["items"]] == [4] and last["next_page"] is None
    past = anonymous.get(_list_path(award.supplier), page=3, page_size=2)
    assert past.status_code == 200 and past.json()["items"] == []
    unknown = anonymous.get(_list_path(award.supplier), limit=5)
    assert unknown.status_code == 422  # the one pagination style: no other spellings
    assert anonymous.get("/api/v1/companies/no-such-company/reviews").status_code == 404
    one = anonymous.get(f"/api/v1/reviews/{page['items'][0]['id']}")
    assert one.status_code == 200 and one.json()["rating"] == 3


def test_the_company_api_carries_the_rating(award):
    services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    body = ApiClient().get(f"/api/v1/companies/{award.supplier.slug}").json()
    assert body["review_count"] == 1 and body["review_average"] == 4.0


@pytest.fixture
def review(award):
    return services.review_create(
        actor=award.cast.owner, quotation=award.quotation, **review_fields()
    )


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("supplier_owner", 200),
        ("supplier_admin", 200),
        ("supplier_member", 403),
        ("owner", 404),
        ("outsider", 404),
        ("operator", 404),
        ("anonymous", 401),
    ],
)
def test_who_may_reply(award, review, who, status):
    response = ApiClient(award.user(who)).post(
        f"/api/v1/reviews/{review.pk}/reply", {"reply": "Thank you for the order."}
    )
    assert response.status_code == status, response.content
    review.refresh_from_db()
    if status == 200:
        assert response.json()["reply"] == "Thank you for the order."
        assert response.json()["replied_at"] is not None
        assert review.reply == "Thank you for the order."
    else:
        assert review.reply == ""


@pytest.mark.parametrize(
    ("who", "status"),
    [("operator", 200), ("supplier_owner", 403), ("owner", 403), ("outsider", 403)],
)
def test_only_operators_hide_and_restore(award, review, who, status):
    client = ApiClient(award.user(who))
    hidden = client.post(f"/api/v1/operator/reviews/{review.pk}/hide", {"reason": "Abusive."})
    assert hidden.status_code == status, hidden.content
    if status == 200:
        assert hidden.json()["status"] == "hidden" and hidden.json()["changed"] is True
        public = ApiClient().get(_list_path(award.supplier)).json()
        assert public["count"] == 0
        assert ApiClient().get(f"/api/v1/reviews/{review.pk}").status_code == 404
        own = ApiClient(award.supplier_member).get(_list_path(award.supplier)).json()
        assert own["items"][0]["hidden_reason"] == "Abusive."
        restored = client.post(f"/api/v1/operator/reviews/{review.pk}/restore")
        assert restored.json()["status"] == "published" and restored.json()["changed"] is True
        again = client.post(f"/api/v1/operator/reviews/{review.pk}/restore")
        assert again.json()["changed"] is False
        assert AuditEntry.objects.filter(action__in=["review.hide", "review.restore"]).count() == 2
    else:
        assert client.post(f"/api/v1/operator/reviews/{review.pk}/restore").status_code == 403
        review.refresh_from_db()
        assert review.status == "published"
        assert not AuditEntry.objects.filter(action__startswith="review.").exists()


def test_the_schema_documents_the_review_operations():
    from tradepost.api.urls import api

    paths = api.get_openapi_schema()["paths"]
    create = paths["/api/v1/requests/quotations/{quotation_id}/review"]["post"]
    assert {"201", "401", "403", "404", "409", "422"} <= {str(s) for s in create["responses"]}
    listing = paths["/api/v1/companies/{slug}/reviews"]["get"]
    assert {p.get("name") for p in listing["parameters"]} >= {"slug", "page", "page_size"}
    assert {} in listing["security"]  # public
    for path in ("/api/v1/operator/reviews/{review_id}/hide", "/api/v1/reviews/{review_id}/reply"):
        assert "403" in {str(s) for s in paths[path]["post"]["responses"]}

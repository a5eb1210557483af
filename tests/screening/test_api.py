"""The banned-term and review-queue API for operators (/api/v1/operator/banned-terms,
/api/v1/operator/held-listings): who may (401 for nobody signed in, 403 for anybody but an
operator, nothing changed), the list's writes, the queue with its excerpts, the decisions;
the supplier's product API showing "held"."""

from __future__ import annotations

import pytest

from tests.api.test_products_write import new_product_body
from tests.api_client import ApiClient
from tests.factories.screening import ban, held_product
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Product, ProductStatus
from tradepost.screening.models import BannedTerm

pytestmark = pytest.mark.django_db

TERMS = "/api/v1/operator/banned-terms"
HELD = "/api/v1/operator/held-listings"


def _calls(term_id: int, product_id: int):
    return [
        ("get", TERMS, None),
        ("post", TERMS, {"term": "gun"}),
        ("post", f"{TERMS}/bulk", {"terms": "gun\nknife"}),
        ("get", f"{TERMS}/{term_id}", None),
        ("patch", f"{TERMS}/{term_id}", {"active": False}),
        ("delete", f"{TERMS}/{term_id}", None),
        ("get", HELD, None),
        ("post", f"{HELD}/{product_id}/approve", {}),
        ("post", f"{HELD}/{product_id}/reject", {"reason": "No."}),
    ]


def _send(api: ApiClient, method: str, path: str, body):
    if method in ("get", "delete"):
        return getattr(api, method)(path)
    return getattr(api, method)(path, body)


@pytest.mark.parametrize(
    ("who", "status"),
    [("anonymous", 401), ("owner", 403), ("member", 403), ("outsider", 403), ("loner", 403)],
)
def test_only_operators_are_answered(cast, who, status):
    product = held_product(cast.member, cast.company)
    term = BannedTerm.objects.get()
    api = ApiClient(cast.user(who))
    for method, path, body in _calls(term.pk, product.pk):
        response = _send(api, method, path, body)
        assert response.status_code == status, (method, path, response.content)
        assert response["Content-Type"] == "application/problem+json"
        if status == 403:
            assert response.json()["type"].endswith("/operators-only")
    assert list(BannedTerm.objects.values_list("term", "active")) == [("ivory", True)]
    assert Product.objects.get(pk=product.pk).status == ProductStatus.HELD


def test_an_operator_manages_the_list(cast):
    api = ApiClient(cast.operator)
    created = api.post(TERMS, {"term": "Tiger Bone", "language": "en", "note": "CITES"})
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["normalized"] == "tiger bone" and body["active"] is True
    assert body["created_by_email"] == cast.operator.email
    term_id = body["id"]
    bulk = api.post(f"{TERMS}/bulk", {"terms": "gun\n象牙\nTIGER-BONE"})
    assert bulk.status_code == 201
    assert [t["term"] for t in bulk.json()["added"]] == ["gun", "象牙"]
    assert bulk.json()["skipped"] == ["TIGER-BONE"]
    page = api.get(TERMS, q="tiger").json()
    assert page["count"] == 1 and page["items"][0]["id"] == term_id
    assert api.get(TERMS, language="any").json()["count"] == 2
    patched = api.patch(f"{TERMS}/{term_id}", {"active": False, "note": None})
    assert patched.status_code == 200 and patched.json()["active"] is False
    assert patched.json()["note"] == "CITES"  # null leaves it as it is
    assert api.get(TERMS, active="false").json()["count"] == 1
    assert api.get(f"{TERMS}/{term_id}").json()["term"] == "Tiger Bone"
    assert api.delete(f"{TERMS}/{term_id}").status_code == 204
    assert api.get(f"{TERMS}/{term_id}").status_code == 404
    assert AuditEntry.objects.filter(action__startswith="banned_term.").count() == 5


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"term": ""}, 422, "term"),
        ({"term": "x" * 101}, 422, "term"),
        ({"term": "gun", "language": "xx"}, 422, "language"),
        ({"term": "gun", "active": "yes"}, 422, "active"),
        ({"term": 5}, 422, "term"),
        ({}, 422, "term"),
        ({"term": "IVORY"}, 409, None),
    ],
)
def test_bad_bodies_are_problems_in_the_clients_language(cast, body, status, field):
    ban("ivory", actor=cast.operator)
    api = ApiClient(cast.operator)
    api.headers["Accept-Language"] = "zh-hans"
    response = api.post(TERMS, body)
    assert response.status_code == status, response.content
    problem = response.json()
    if field:
        assert field in {error["field"] for error in problem["errors"]}
    else:
        assert problem["type"].endswith("/banned-term-duplicate")
        assert problem["title"] == "该词语已在列表中"
    assert BannedTerm.objects.count() == 1


def test_the_queue_shows_terms_in_context_and_the_operator_decides(cast):
    first = held_product(cast.member, cast.company, description="<p>Old ivory, 12 cm.</p>")
    second = held_product(cast.member, cast.company, title="Ivory bangle")
    api = ApiClient(cast.operator)
    page = api.get(HELD).json()
    assert page["count"] == 2
    item = page["items"][0]
    assert item["product_id"] == first.pk and item["company"]["id"] == cast.company.pk
    assert [t["term"] for t in item["terms"]] == ["ivory"]
    description = next(f for f in item["findings"] if f["part"] == "description")
    (excerpt,) = description["excerpts"]
    start, end = excerpt["marks"][0]
    assert excerpt["text"][start:end] == "ivory" and description["matched"] == ["ivory"]
    approved = api.post(f"{HELD}/{first.pk}/approve")
    assert approved.json() == {"product_id": first.pk, "status": "published"}
    assert api.post(f"{HELD}/{first.pk}/approve").status_code == 404  # no longer held
    assert api.post(f"{HELD}/{second.pk}/reject", {"reason": ""}).status_code == 422
    rejected = api.post(f"{HELD}/{second.pk}/reject", {"reason": "No ivory."})
    assert rejected.json() == {"product_id": second.pk, "status": "draft"}
    assert api.get(HELD).json()["count"] == 0
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"product.review_approve", "product.review_reject"} <= actions


def test_the_supplier_sees_held(cast):
    ban("ivory", actor=cast.operator)
    api = ApiClient(cast.member)
    created = api.post("/api/v1/me/products", new_product_body(title="Ivory comb"))
    assert created.status_code == 201, created.content
    published = api.post(f"/api/v1/me/products/{created.json()['id']}/publish")
    assert published.status_code == 200 and published.json()["status"] == "held"
    held = api.get("/api/v1/me/products", status="held").json()
    assert [item["id"] for item in held["items"]] == [created.json()["id"]]
    withdrawn = api.post(f"/api/v1/me/products/{created.json()['id']}/unpublish")
    assert withdrawn.json()["status"] == "draft"


def test_the_schema_documents_the_operations():
    from tradepost.api.urls import api

    paths = api.get_openapi_schema()["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/operator/banned-terms"])
    assert {"get", "patch", "delete"} <= set(
        paths["/api/v1/operator/banned-terms/{banned_term_id}"]
    )
    assert "post" in paths["/api/v1/operator/held-listings/{product_id}/reject"]
    assert catalog_services.REVIEW_REASON_MAX_LENGTH == 1000

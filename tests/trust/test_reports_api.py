"""The reports API: POST /api/v1/reports for anybody signed in, /api/v1/operator/reports and its
decisions, /api/v1/operator/moderation for operators; who may do what, refusals as problem
documents in the client's language, pages past the end, bad bodies."""

from __future__ import annotations

import json

import pytest

from tests.api_client import ApiClient
from tests.factories.catalog import make_product
from tests.factories.trust import report
from tradepost.audit.models import AuditEntry
from tradepost.catalog.models import ProductStatus
from tradepost.companies.models import Standing
from tradepost.trust.models import Report, ReportStatus

pytestmark = pytest.mark.django_db

REPORTS = "/api/v1/reports"
QUEUE = "/api/v1/operator/reports"
MODERATION = "/api/v1/operator/moderation"


def _body(reported, kind="product", **fields):
    return {"target": kind, "target_id": reported.target(kind).pk, "reason": "spam", **fields}


@pytest.mark.parametrize(
    ("who", "kind", "status"),
    [
        ("anonymous", "product", 401),
        ("loner", "product", 201),
        ("loner", "message", 404),
        ("member", "request", 403),
        ("owner", "company", 403),
        ("outsider", "message", 201),
        ("operator", "company", 201),
    ],
)
def test_who_may_report(cast, reported, who, kind, status):
    response = ApiClient(cast.user(who)).post(REPORTS, _body(reported, kind, note="Fake brand."))
    assert response.status_code == status, response.content
    if status == 201:
        body = response.json()
        assert body["status"] == "open" and body["target"] == kind and body["note"] == "Fake brand."
        assert Report.objects.count() == 1
    else:
        assert response["Content-Type"] == "application/problem+json"
        assert not Report.objects.exists()


def test_refusals_are_problems_in_the_clients_language(cast, reported, settings):
    api = ApiClient(cast.outsider)
    api.headers["Accept-Language"] = "zh-hans"
    assert api.post(REPORTS, _body(reported)).status_code == 201
    duplicate = api.post(REPORTS, _body(reported))
    assert duplicate.status_code == 409
    assert duplicate.json()["type"].endswith("/report-duplicate")
    assert duplicate.json()["title"] == "已举报过"
    settings.TRADEPOST_REPORTS_PER_DAY = 1
    limited = api.post(REPORTS, _body(reported, "company"))
    assert limited.status_code == 429 and "24 小时" in limited.json()["detail"]
    hidden = make_product(company=cast.company, status=ProductStatus.DRAFT)
    missing = api.post(REPORTS, {**_body(reported), "target_id": hidden.pk})
    assert missing.status_code == 404 and missing.json()["type"].endswith("/not-found")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"note": "x" * 1001}, "note"),
        ({"reason": "ugly"}, "reason"),
        ({"target": "invoice"}, "target"),
        ({"target_id": "12"}, "target_id"),  # a string is not an id
        ({"target_id": True}, "target_id"),
        ({"note": None}, "note"),
    ],
    ids=lambda v: str(v)[:30],
)
def test_bad_fields_are_422_naming_them(cast, reported, change, field):
    response = ApiClient(cast.outsider).post(REPORTS, {**_body(reported), **change})
    assert response.status_code == 422, response.content
    assert field in {error["field"].split(".")[-1] for error in response.json()["errors"]}
    assert not Report.objects.exists()


def test_nul_and_lone_surrogates_are_refused(cast, reported):
    api = ApiClient(cast.outsider)
    for raw in ('"x\\u0000y"', '"x\\ud800y"'):
        text = json.dumps(_body(reported, note="MARK")).replace('"MARK"', raw)
        response = api.client.post(
            REPORTS, text, content_type="application/json", headers=api.headers
        )
        assert 400 <= response.status_code < 500, response.content
    assert not Report.objects.exists()


@pytest.mark.parametrize("who", ["anonymous", "loner", "member", "owner", "outsider"])
def test_only_operators_read_and_work_the_queue(cast, reported, who):
    made = report(cast.outsider, "product", reported.product)
    api = ApiClient(cast.user(who))
    expected = 401 if who == "anonymous" else None
    queue = api.get(QUEUE)
    decision = api.post(f"{QUEUE}/{made.pk}/decision", {"action": "hide", "reason": "spam"})
    moderation = api.post(
        MODERATION,
        {"target": "company", "target_id": cast.company.pk, "action": "ban", "reason": "fraud"},
    )
    assert queue.status_code == (expected or 403)
    assert decision.status_code == (expected or 404)  # another's report looks missing
    assert moderation.status_code == (expected or 403)
    reported.product.refresh_from_db()
    cast.company.refresh_from_db()
    assert reported.product.status == ProductStatus.PUBLISHED
    assert cast.company.standing == Standing.ACTIVE
    assert not AuditEntry.objects.exists()


def test_the_queue_groups_open_reports_by_target_oldest_first(cast, reported):
    first = report(cast.outsider, "message", reported.message, reason="fraud")
    report(cast.loner, "product", reported.product, reason="spam", note="<script>alert(1)</script>")
    report(cast.outsider, "product", reported.product, reason="counterfeit")
    api = ApiClient(cast.operator)
    page = api.get(QUEUE).json()
    assert page["count"] == 2 and page["next_page"] is None
    message_group, product_group = page["items"]
    assert (message_group["target"], message_group["decide_with"]) == ("message", first.pk)
    assert message_group["company"] == {
        "id": cast.company.pk,
        "name": "Acme Trading",
        "standing": "active",
        "suspended_until": None,
    }
    assert product_group["label"] == "Vacuum flask 500 ml" and not product_group["hidden"]
    assert [r["reason"] for r in product_group["reports"]] == ["spam", "counterfeit"]
    assert product_group["reports"][0]["note"] == "<script>alert(1)</script>"
    assert product_group["reports"][0]["reporter_email"] == cast.loner.email
    second_page = api.get(QUEUE, page=2, page_size=1).json()
    assert [item["target"] for item in second_page["items"]] == ["product"]
    past_the_end = api.get(QUEUE, page=40).json()
    assert past_the_end["items"] == [] and past_the_end["count"] == 2
    assert api.get(QUEUE, page=0).status_code == 422
    assert api.get(QUEUE, per_page=5).status_code == 422


def test_an_operator_decides_and_acts_by_id(cast, reported):
    made = report(cast.outsider, "product", reported.product)
    api = ApiClient(cast.operator)
    decided = api.post(f"{QUEUE}/{made.pk}/decision", {"action": "hide", "message": "Fake."})
    assert decided.status_code == 200, decided.content
    assert decided.json()["status"] == ReportStatus.ACTIONED
    again = api.post(f"{QUEUE}/{made.pk}/decision", {"action": "dismiss"})
    assert again.status_code == 409 and again.json()["type"].endswith("/report-decided")
    assert api.get(QUEUE).json()["count"] == 0
    restored = api.post(
        MODERATION, {"target": "product", "target_id": reported.product.pk, "action": "restore"}
    )
    assert restored.status_code == 200, restored.content
    assert restored.json()["changed"] is True and restored.json()["hidden"] is False
    suspended = api.post(
        MODERATION,
        {
            "target": "request",
            "target_id": reported.request.pk,
            "action": "suspend",
            "reason": "fraud",
        },
    )
    assert suspended.json()["company"]["standing"] == "suspended"
    invalid = api.post(
        MODERATION,
        {"target": "company", "target_id": cast.company.pk, "action": "hide", "reason": "spam"},
    )
    assert invalid.status_code == 422
    missing = api.post(MODERATION, {"target": "product", "target_id": 10**15, "action": "restore"})
    assert missing.status_code == 404
    assert api.post(f"{QUEUE}/{10**15}/decision", {"action": "dismiss"}).status_code == 404

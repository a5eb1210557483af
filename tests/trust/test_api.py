"""The verification API: /api/v1/me/verification for a company, /api/v1/operator/verification
for operators, /api/v1/verification/documents/<id> for both; who may do what, refusals as
problem documents, pages past the end, another company's ids answering like missing ones."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api_client import ApiClient
from tests.factories.companies import make_trader
from tests.factories.trust import pdf_upload, png_upload, submit_verification
from tradepost.trust.models import VerificationRequest

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/verification"
QUEUE = "/api/v1/operator/verification"
DOCUMENTS = "/api/v1/verification/documents"


def _api(cast, who) -> ApiClient:
    return ApiClient(cast.user(who))


def _send(api: ApiClient, files: dict):
    return api.client.post(ME, files, headers=api.headers)


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 401),
        ("loner", 403),
        ("operator", 403),
        ("member", 403),
        ("admin", 201),
        ("owner", 201),
        ("outsider", 201),
    ],
)
def test_send_documents(cast, who, status):
    response = _send(
        _api(cast, who),
        {"business_licence": [pdf_upload()], "certification": [png_upload(), pdf_upload("CE.pdf")]},
    )
    assert response.status_code == status, response.content
    mine = VerificationRequest.objects.filter(company=cast.company)
    if status != 201:
        assert not VerificationRequest.objects.exists()
        return
    body = response.json()
    assert body["status"] == "pending" and body["checked"] == []
    assert [d["kind"] for d in body["documents"]] == [
        "business_licence",
        "certification",
        "certification",
    ]
    assert body["documents"][1]["content_type"] == "image/png"
    assert body["documents"][0]["url"].endswith(f"{DOCUMENTS}/{body['documents'][0]['id']}")
    assert mine.exists() is (who != "outsider")


@pytest.mark.parametrize(
    ("files", "field", "says"),
    [
        (
            {"business_licence": [SimpleUploadedFile("a.pdf", b"MZ\x90\x00")]},
            "business_licence",
            "not a PDF",
        ),
        ({"passport": [pdf_upload()]}, "passport", "not known"),
        ({}, "body", "at least one"),
        ({"other": [pdf_upload(f"{n}.pdf") for n in range(11)]}, "body", "at most 10"),
        ({"business_licence": "licence.pdf"}, "business_licence", "file parts"),
    ],
    ids=["wrong-magic", "unknown-part", "no-files", "eleven-files", "text-part"],
)
def test_refused_documents(cast, files, field, says):
    response = _send(_api(cast, "owner"), files)
    assert response.status_code == 422, response.content
    problem = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert [e["field"] for e in problem["errors"]] == [field]
    assert says in problem["errors"][0]["message"]
    assert not VerificationRequest.objects.exists()


def test_refusals_are_in_the_clients_language(cast):
    api = _api(cast, "owner")
    response = api.client.post(
        ME,
        {"business_licence": [SimpleUploadedFile("a.pdf", b"nope")]},
        headers={**api.headers, "Accept-Language": "zh-hans"},
    )
    assert response.status_code == 422
    assert "不是 PDF" in response.json()["errors"][0]["message"]


def test_status_history_and_withdraw(cast):
    owner, member = _api(cast, "owner"), _api(cast, "member")
    assert owner.get(ME).json() == {
        "company_id": cast.company.pk,
        "verified": False,
        "verified_at": None,
        "checked": [],
        "pending": None,
    }
    submit_verification(cast.owner)
    assert len(owner.get(ME).json()["pending"]["documents"]) == 1
    assert member.get(ME).json()["pending"]["documents"] == []  # not for a plain member
    assert _send(owner, {"other": [pdf_upload()]}).status_code == 409
    assert member.post(f"{ME}/withdraw").status_code == 403
    withdrawn = owner.post(f"{ME}/withdraw")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert owner.post(f"{ME}/withdraw").status_code == 409
    history = owner.get(f"{ME}/requests", page_size=1).json()
    assert history["count"] == 1 and history["items"][0]["status"] == "withdrawn"
    past = owner.get(f"{ME}/requests", page=5).json()
    assert past["items"] == [] and past["count"] == 1 and past["next_page"] is None
    assert owner.get(f"{ME}/requests", per_page=5).status_code == 422
    assert _api(cast, "loner").get(ME).status_code == 403  # no-company
    assert ApiClient().get(ME).status_code == 401


@pytest.mark.parametrize(
    ("who", "status"),
    [("anonymous", 401), ("outsider", 404), ("member", 404), ("admin", 200), ("operator", 200)],
)
def test_download(cast, who, status):
    document = submit_verification(cast.owner).documents.get()
    api = _api(cast, who)
    response = api.get(f"{DOCUMENTS}/{document.pk}")
    assert response.status_code == status
    if status == 200:
        assert response["Content-Disposition"] == 'attachment; filename="licence.pdf"'
        assert response["X-Content-Type-Options"] == "nosniff"
        assert "no-store" in response["Cache-Control"]
    if status == 404:
        missing = api.get(f"{DOCUMENTS}/{document.pk + 1000}")
        assert missing.status_code == 404
        assert {k: v for k, v in missing.json().items() if k != "instance"} == {
            k: v for k, v in response.json().items() if k != "instance"
        }


def test_the_operators_queue(cast):
    outsider_request = submit_verification(cast.outsider)
    own = submit_verification(cast.owner)
    operator = _api(cast, "operator")
    page = operator.get(QUEUE).json()
    assert [item["id"] for item in page["items"]] == [outsider_request.pk, own.pk]  # oldest first
    assert page["items"][1]["company_id"] == cast.company.pk
    assert len(page["items"][1]["documents"]) == 1
    past = operator.get(QUEUE, page=3, page_size=1).json()
    assert past["items"] == [] and past["count"] == 2
    assert _api(cast, "owner").get(QUEUE).status_code == 403
    assert ApiClient().get(QUEUE).status_code == 401


def test_operators_approve_and_reject(cast):
    request = submit_verification(cast.owner)
    operator = _api(cast, "operator")
    approve = f"{QUEUE}/{request.pk}/approve"
    assert operator.post(approve, {"checked": ["passport"]}).status_code == 422
    assert operator.post(approve, {"checked": []}).status_code == 422
    assert operator.post(approve, {"checked": "address"}).status_code == 422  # not a list
    response = operator.post(approve, {"checked": ["address", "legal_name"]})
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "approved"
    assert response.json()["checked"] == ["legal_name", "address"]
    assert operator.post(f"{QUEUE}/{request.pk}/reject", {"reason": "No."}).status_code == 409
    status = _api(cast, "owner").get(ME).json()
    assert status["verified"] and status["checked"] == ["legal_name", "address"]
    assert status["verified_at"] is not None
    second = submit_verification(cast.owner)
    reject = f"{QUEUE}/{second.pk}/reject"
    assert operator.post(reject, {"reason": ""}).status_code == 422
    assert operator.post(reject, {"reason": "x" * 1001}).status_code == 422
    refused = operator.post(reject, {"reason": "营业执照已过期。"})
    assert refused.json()["rejection_reason"] == "营业执照已过期。"


@pytest.mark.parametrize(
    ("who", "status"), [("anonymous", 401), ("outsider", 404), ("member", 404), ("owner", 403)]
)
def test_only_operators_decide(cast, who, status):
    request = submit_verification(cast.owner)
    api = _api(cast, who)
    for action, body in (("approve", {"checked": ["address"]}), ("reject", {"reason": "No."})):
        assert api.post(f"{QUEUE}/{request.pk}/{action}", body).status_code == status
    other_user, _company = make_trader()
    stranger = submit_verification(other_user)
    if who != "anonymous":
        stranger_url = f"{QUEUE}/{stranger.pk}/approve"
        assert api.post(stranger_url, {"checked": ["address"]}).status_code == 404
    assert set(VerificationRequest.objects.values_list("status", flat=True)) == {"pending"}


def test_the_page_the_api_and_the_service_take_the_same_kinds_of_document():
    from tradepost.api.urls import api
    from tradepost.trust.forms import VerificationSubmitForm
    from tradepost.trust.models import DocumentKind

    schema = api.get_openapi_schema()
    body = schema["paths"][ME]["post"]["requestBody"]["content"]["multipart/form-data"]
    properties = body["schema"].get("properties") or {}
    if "$ref" in body["schema"]:
        name = body["schema"]["$ref"].rsplit("/", 1)[-1]
        properties = schema["components"]["schemas"][name]["properties"]
    assert set(properties) == set(DocumentKind.values) == set(VerificationSubmitForm.base_fields)

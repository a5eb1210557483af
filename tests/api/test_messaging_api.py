"""/api/v1/conversations and /api/v1/notifications through HTTP with bearer tokens."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse

from tests.api_client import ApiClient
from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tradepost.catalog.models import ProductStatus
from tradepost.messaging.models import Conversation, ConversationRead, Message
from tradepost.notify.models import Notification

pytestmark = pytest.mark.django_db

BASE = "/api/v1/conversations"


def _state():
    return (
        Conversation.objects.count(),
        list(Message.objects.order_by("pk").values_list("pk", "body")),
        list(ConversationRead.objects.values_list("company_id", "last_read_message_id")),
        list(Notification.objects.values_list("pk", "read_at")),
    )


def _problem(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def test_inquiry_create_list_detail_messages():
    p = make_parties()
    buyer = ApiClient(p.buyer)
    response = buyer.post(
        f"{BASE}/inquiries",
        {"product_id": p.product.pk, "quantity": "1000", "unit": "pieces", "message": "Price?"},
    )
    assert response.status_code == 201, response.content
    body = response.json()
    conversation_id = body["id"]
    assert body["supplier_company"]["id"] == p.supplier_company.pk
    assert body["buyer_company"]["name"] == "Rotterdam Imports BV"
    assert body["product_id"] == p.product.pk
    assert body["buying_request_id"] is None

    supplier = ApiClient(p.supplier_member)
    listing = supplier.get(BASE).json()
    assert listing["count"] == 1
    assert listing["items"][0]["unread"] == 1
    assert supplier.get(f"{BASE}/{conversation_id}").json()["unread"] == 1
    reply = supplier.post(f"{BASE}/{conversation_id}/messages", {"body": "<i>2.80</i>"})
    assert reply.status_code == 201
    assert reply.json()["body"] == "<i>2.80</i>"
    messages = buyer.get(f"{BASE}/{conversation_id}/messages").json()
    assert [m["body"] for m in messages["items"]] == ["Price?", "<i>2.80</i>"]
    assert buyer.get(f"{BASE}/{conversation_id}").json()["unread"] == 1
    assert buyer.post(f"{BASE}/{conversation_id}/read").status_code == 204
    assert ApiClient(p.buyer_colleague).get(f"{BASE}/{conversation_id}").json()["unread"] == 0


def test_inquiry_to_a_company():
    p = make_parties()
    response = ApiClient(p.buyer).post(
        f"{BASE}/inquiries", {"company_id": p.supplier_company.pk, "message": "Catalogue?"}
    )
    assert response.status_code == 201
    assert response.json()["product_id"] is None


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"message": "Hi"}, 422, "validation-error"),
        ({"product_id": 999999, "message": "Hi"}, 404, "not-found"),
        ({"product_id": -1, "message": "Hi"}, 404, "not-found"),
        ({"product_id": 2**70, "message": "Hi"}, 404, "not-found"),
        ({"company_id": 999999, "message": "Hi"}, 404, "not-found"),
        ({"product_id": "abc", "message": "Hi"}, 422, "validation-error"),
        ({"product_id": None, "company_id": None, "message": "Hi"}, 422, "validation-error"),
        ({"product": "P", "message": ""}, 422, "validation-error"),
        ("PRODUCT", 422, "empty-body"),
        ("TOO_LONG", 422, "body-too-long"),
        ("NEGATIVE", 422, "invalid-quantity"),
        ("BAD_UNIT", 422, "invalid-unit"),
        ("DRAFT", 404, "not-found"),
    ],
)
def test_inquiry_bad_input(payload, status, code):
    p = make_parties()
    presets = {
        "PRODUCT": {"product_id": p.product.pk, "message": "  "},
        "TOO_LONG": {"product_id": p.product.pk, "message": "x" * 5001},
        "NEGATIVE": {"product_id": p.product.pk, "message": "Hi", "quantity": "-1", "unit": "kg"},
        "BAD_UNIT": {"product_id": p.product.pk, "message": "Hi", "quantity": "1", "unit": "zz"},
        "DRAFT": {
            "product_id": make_product(company=p.supplier_company, status=ProductStatus.DRAFT).pk,
            "message": "Hi",
        },
    }
    payload = presets.get(payload, payload) if isinstance(payload, str) else payload
    before = _state()
    body = _problem(ApiClient(p.buyer).post(f"{BASE}/inquiries", payload), status)
    fields = {
        "empty-body": "message",
        "body-too-long": "message",
        "invalid-quantity": "quantity",
        "invalid-unit": "unit",
    }
    if code in fields:
        assert body["type"].endswith("validation-error")
        assert [e["field"] for e in body["errors"]] == [fields[code]]
    else:
        assert body["type"].endswith(code)
    assert _state() == before


def test_inquiry_refusals_for_the_actor():
    p = make_parties()
    before = _state()
    body = _problem(
        ApiClient(make_user()).post(
            f"{BASE}/inquiries", {"product_id": p.product.pk, "message": "x"}
        ),
        403,
    )
    assert body["type"].endswith("no-company")
    body = _problem(
        ApiClient(p.supplier_member).post(
            f"{BASE}/inquiries", {"product_id": p.product.pk, "message": "x"}
        ),
        403,
    )
    assert body["type"].endswith("own-company")
    _problem(
        ApiClient().post(f"{BASE}/inquiries", {"product_id": p.product.pk, "message": "x"}), 401
    )
    assert _state() == before


def test_rate_limit_answers_429(settings):
    settings.TRADEPOST_MESSAGES_PER_HOUR = 2
    p = make_parties()
    conversation = make_conversation(p)
    api = ApiClient(p.buyer)
    assert api.post(f"{BASE}/{conversation.pk}/messages", {"body": "two"}).status_code == 201
    before = _state()
    body = _problem(api.post(f"{BASE}/{conversation.pk}/messages", {"body": "three"}), 429)
    assert body["type"].endswith("message-rate-limit")
    assert _state() == before


@pytest.mark.parametrize("who", ["anonymous", "no_company", "other_company"])
def test_outsiders_get_404_like_missing_ids_and_change_nothing(who):
    p = make_parties()
    conversation = make_conversation(p)
    if who == "anonymous":
        api = ApiClient()
    elif who == "no_company":
        api = ApiClient(make_user())
    else:
        other = make_user()
        make_company(owner=other)
        api = ApiClient(other)
    before = _state()
    expected = 401 if who == "anonymous" else 404
    for suffix in ("", "/messages"):
        theirs = api.get(f"{BASE}/{conversation.pk}{suffix}")
        missing = api.get(f"{BASE}/{conversation.pk + 999}{suffix}")
        assert theirs.status_code == missing.status_code == expected
        if expected == 404:
            assert theirs.json()["title"] == missing.json()["title"]
    assert api.post(f"{BASE}/{conversation.pk}/messages", {"body": "x"}).status_code == expected
    assert api.post(f"{BASE}/{conversation.pk}/read").status_code == expected
    for weird in ("abc", "-1", str(2**70)):
        assert api.get(f"{BASE}/{weird}").status_code == expected
    if who != "anonymous":
        assert api.get(BASE).json()["count"] == 0
    assert _state() == before


def test_operator_reads_but_cannot_write():
    p = make_parties()
    conversation = make_conversation(p)
    api = ApiClient(make_operator())
    assert api.get(f"{BASE}/{conversation.pk}").status_code == 200
    assert api.get(f"{BASE}/{conversation.pk}/messages").status_code == 200
    before = _state()
    _problem(api.post(f"{BASE}/{conversation.pk}/messages", {"body": "x"}), 403)
    assert api.post(f"{BASE}/{conversation.pk}/read").status_code == 204
    assert _state() == before


def test_list_query_count_does_not_grow(django_assert_max_num_queries):
    p = make_parties()
    for n in range(6):
        make_conversation(p, message=f"m{n}")
    api = ApiClient(p.supplier_owner)
    with django_assert_max_num_queries(8):
        data = api.get(f"{BASE}?page_size=5").json()
    assert data["count"] == 6
    assert len(data["items"]) == 5


def _notifications_mounted() -> bool:
    try:
        reverse("api:list_notifications")
    except NoReverseMatch:
        return False
    return True


@pytest.mark.skipif(
    not _notifications_mounted(), reason="notifications_router not mounted in api/urls.py yet"
)
def test_notifications_list_and_mark_read():
    p = make_parties()
    make_conversation(p)
    make_conversation(p, message="second")
    api = ApiClient(p.supplier_member)
    data = api.get("/api/v1/notifications").json()
    assert data["count"] == 2
    assert data["unread"] == 2
    first = data["items"][0]
    assert first["kind"] == "new_inquiry"
    assert first["link"].startswith("/en/messages/")
    theirs = Notification.objects.filter(recipient=p.supplier_owner).first()
    marked = api.post("/api/v1/notifications/read", {"ids": [first["id"], theirs.pk]})
    assert marked.json() == {"marked": 1}
    assert api.post("/api/v1/notifications/read", {}).json() == {"marked": 1}
    assert Notification.objects.filter(recipient=p.supplier_owner, read_at=None).count() == 2
    assert ApiClient().get("/api/v1/notifications").status_code == 401


PDF = b"%PDF-1.4\n%%EOF\n"


def test_reply_with_attachments_and_download():
    from django.core.files.uploadedfile import SimpleUploadedFile

    p = make_parties()
    conversation = make_conversation(p)
    api = ApiClient(p.supplier_owner)
    response = api.client.post(
        f"{BASE}/{conversation.pk}/messages/upload",
        {
            "body": "Catalogue attached",
            "files": [SimpleUploadedFile("cat.pdf", PDF, content_type="application/pdf")],
        },
        headers=api.headers,
    )
    assert response.status_code == 201, response.content
    (attachment,) = response.json()["attachments"]
    assert attachment["name"] == "cat.pdf"
    assert attachment["content_type"] == "application/pdf"
    url = attachment["url"]
    download = ApiClient(p.buyer).get(url)
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == PDF
    other = make_user()
    make_company(owner=other)
    assert ApiClient(other).get(url).status_code == 404
    assert ApiClient().get(url).status_code == 401
    listing = ApiClient(p.buyer).get(f"{BASE}/{conversation.pk}/messages").json()
    assert listing["items"][-1]["attachments"][0]["url"] == url


@pytest.mark.parametrize(
    ("form", "field"),
    [
        # A file whose content is not what its name says.
        ({"body": "x", "files": [("a.pdf", b"<svg onload=alert(1)>")]}, "attachments"),
        # Files sent as text.
        ({"body": "true", "files": "7710008"}, "files"),
    ],
    ids=["forbidden-type", "files-as-text"],
)
def test_a_reply_with_unusable_files_is_refused_and_nothing_is_sent(form, field):
    from django.core.files.uploadedfile import SimpleUploadedFile

    p = make_parties()
    conversation = make_conversation(p)
    api = ApiClient(p.supplier_owner)
    before = _state()
    if isinstance(form["files"], list):
        form = {**form, "files": [SimpleUploadedFile(*named) for named in form["files"]]}
    response = api.client.post(
        f"{BASE}/{conversation.pk}/messages/upload", form, headers=api.headers
    )
    body = _problem(response, 422)
    assert [error["field"] for error in body["errors"]] == [field]
    assert _state() == before


@pytest.mark.parametrize(
    "content_type",
    ["multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\x7f"],
)
def test_a_multipart_body_without_a_usable_boundary_is_a_400_problem(content_type):
    p = make_parties()
    conversation = make_conversation(p)
    api = ApiClient(p.supplier_owner)
    before = _state()
    response = api.client.generic(
        "POST",
        f"{BASE}/{conversation.pk}/messages/upload",
        b'--x\r\nContent-Disposition: form-data; name="body"\r\n\r\nhi\r\n--x--\r\n',
        content_type=content_type,
        headers=api.headers,
    )
    body = _problem(response, 400)
    assert body["type"].endswith("/bad-request")
    assert "boundary" in body["detail"]
    assert _state() == before

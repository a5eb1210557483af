"""Who may do what with a company's verification, through the pages: anonymous, another
company's owner, a person without a company, a plain member, an admin, the owner, an operator.
When access is denied nothing changes, and another company's document answers like a missing
one (404)."""

from __future__ import annotations

import re

import pytest

from tests.factories.trust import pdf_upload, submit_verification
from tests.pages import page_url
from tradepost.audit.models import AuditEntry
from tradepost.companies.models import Company
from tradepost.notify.models import Notification
from tradepost.trust.models import VerificationDocument, VerificationRequest

pytestmark = pytest.mark.django_db

PEOPLE = ["anonymous", "outsider", "loner", "member", "admin", "owner", "operator"]
MANAGERS = {"admin", "owner"}
READERS = {"admin", "owner", "operator"}


def _as(client, cast, who):
    user = cast.user(who)
    if user is not None:
        client.force_login(user)
    return client


def _snapshot(cast):
    return (
        list(VerificationRequest.objects.order_by("pk").values()),
        VerificationDocument.objects.count(),
        Company.objects.filter(is_verified=True).count(),
        Notification.objects.count(),
        AuditEntry.objects.count(),
    )


def _page(response) -> str:
    """The page's text without its CSRF token (a new one each time)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


def _assert_denied(response, who, before, cast):
    if who == "anonymous":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code in (302, 403, 404), response.status_code
    assert _snapshot(cast) == before


@pytest.mark.parametrize("who", PEOPLE)
def test_view_the_verification_page(client, cast, who):
    pending = submit_verification(cast.owner)
    document = pending.documents.get()
    response = _as(client, cast, who).get(page_url("trust:verification"))
    if who in ("member", "admin", "owner"):
        assert response.status_code == 200
        html = response.content.decode()
        assert "Waiting for review" in html
        shows_documents = page_url("trust:document", document_id=document.pk) in html
        assert shows_documents is (who in MANAGERS)
        assert ('enctype="multipart/form-data"' in html) is False  # a request is waiting
        assert ("Withdraw the request" in html) is (who in MANAGERS)
    elif who == "outsider":  # their own company's page, which knows nothing of this one
        assert response.status_code == 200
        assert document.original_name not in response.content.decode()
    elif who == "operator":
        assert response["Location"] == page_url("trust:queue")
    else:
        assert response.status_code == 302


@pytest.mark.parametrize("who", PEOPLE)
def test_send_documents(client, cast, who):
    before = _snapshot(cast)
    response = _as(client, cast, who).post(
        page_url("trust:verification"), {"business_licence": [pdf_upload()]}
    )
    mine = VerificationRequest.objects.filter(company=cast.company)
    if who in MANAGERS:
        assert response.status_code == 302
        assert mine.get().documents.count() == 1
    elif who == "outsider":  # sends for their own company only
        assert response.status_code == 302
        assert not mine.exists()
        assert VerificationRequest.objects.get().company == cast.other_company
    else:
        _assert_denied(response, who, before, cast)
        if who == "member":
            assert response.status_code == 403


@pytest.mark.parametrize("who", PEOPLE)
def test_withdraw(client, cast, who):
    submit_verification(cast.owner)
    before = _snapshot(cast)
    response = _as(client, cast, who).post(page_url("trust:verification_withdraw"))
    status = VerificationRequest.objects.get().status
    if who in MANAGERS:
        assert response.status_code == 302 and status == "withdrawn"
    else:
        assert status == "pending"
        if who == "member":  # refused with a message on the page it returns to
            assert response.status_code == 302
            assert _snapshot(cast) == before
        else:
            _assert_denied(response, who, before, cast)


@pytest.mark.parametrize("who", PEOPLE)
def test_download_a_document(client, cast, who):
    document = submit_verification(cast.owner).documents.get()
    response = _as(client, cast, who).get(page_url("trust:document", document_id=document.pk))
    if who in READERS:
        assert response.status_code == 200
        assert response["Content-Disposition"].startswith("attachment;")
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Cache-Control"] == "private, no-store"
        assert b"".join(response.streaming_content).startswith(b"%PDF-")
    elif who == "anonymous":
        assert response.status_code == 302
    else:
        assert response.status_code == 404
        missing_url = page_url("trust:document", document_id=document.pk + 1000)
        missing = client.get(missing_url)
        assert missing.status_code == 404
        url = page_url("trust:document", document_id=document.pk)
        assert _page(missing).replace(missing_url, url) == _page(response)


@pytest.mark.parametrize("who", PEOPLE)
@pytest.mark.parametrize(
    ("action", "data"),
    [("trust:approve", {"checked": ["legal_name"]}), ("trust:reject", {"reason": "Blurred."})],
)
def test_decide(client, cast, who, action, data):
    request = submit_verification(cast.owner)
    before = _snapshot(cast)
    response = _as(client, cast, who).post(page_url(action, verification_id=request.pk), data)
    request.refresh_from_db()
    if who == "operator":
        assert response.status_code == 302
        assert request.status == ("approved" if action == "trust:approve" else "rejected")
    else:
        _assert_denied(response, who, before, cast)
        if who != "anonymous":
            assert response.status_code == 404


@pytest.mark.parametrize("who", PEOPLE)
def test_the_queue_is_for_operators(client, cast, who):
    submit_verification(cast.owner)
    response = _as(client, cast, who).get(page_url("trust:queue"))
    expected = {"operator": 200, "anonymous": 302}.get(who, 404)
    assert response.status_code == expected

"""A buyer whose buying request keeps its company name to itself stays unnamed when it asks a
quoting supplier a question: in the conversation, the supplier's inbox, notifications and
emails, the webhook payloads, the API, the award that follows; until the buyer, asked first,
shows its name (#26: the supplier saw "Holland Trading B.V. · Pieter van Dijk")."""

from __future__ import annotations

import json

import pytest
from django.core import mail
from django.test import Client

from tests.api_client import ApiClient
from tests.factories.accounts import make_user
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tests.factories.webhooks import stored_endpoint
from tradepost.messaging import services as messaging_services
from tradepost.notify.models import Notification
from tradepost.sourcing import services as sourcing_services
from tradepost.webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db

BUYER_NAME = "Holland Trading B.V."
BUYER_PERSON = "Pieter van Dijk"


@pytest.fixture
def hidden(django_capture_on_commit_callbacks):
    """A Dutch buyer's request that hides its name, a Chinese supplier's quotation on it with
    a webhook endpoint, and the buyer's question about that quotation."""
    buyer = make_user(full_name=BUYER_PERSON)
    buyer_company = make_company(
        owner=buyer, legal_name=BUYER_NAME, country="NL", business_types=["trading_company"]
    )
    supplier, supplier_company = make_trader(legal_name="Ningbo Flasks Co.")
    stored_endpoint(supplier_company, "https://erp.ningbo.example/hooks")
    request = make_request(actor=buyer, reveal_identity=False)
    quotation = make_quotation(request, actor=supplier)
    with django_capture_on_commit_callbacks(execute=True):
        conversation = sourcing_services.quotation_question(
            actor=buyer, quotation=quotation, message="Can you print our logo?"
        )
    return {
        "buyer": buyer,
        "buyer_company": buyer_company,
        "supplier": supplier,
        "supplier_company": supplier_company,
        "request": request,
        "quotation": quotation,
        "conversation": conversation,
    }


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _named(text: str) -> bool:
    return BUYER_NAME in text or BUYER_PERSON in text or "Holland" in text


def test_the_supplier_never_reads_the_hidden_buyers_name(hidden):
    supplier, conversation = hidden["supplier"], hidden["conversation"]
    assert conversation.buyer_hidden
    client = _signed_in(supplier)

    page = client.get(f"/en/messages/{conversation.pk}/").content.decode()
    assert "A trading company in Netherlands" in page and not _named(page)
    inbox = client.get("/en/messages/").content.decode()
    assert "A trading company in Netherlands" in inbox and not _named(inbox)
    chinese = client.get(f"/zh-hans/messages/{conversation.pk}/").content.decode()
    assert not _named(chinese) and "荷兰" in chinese

    for notification in Notification.objects.filter(recipient=supplier):
        assert not _named(json.dumps(notification.params)), notification.params
    assert Notification.objects.filter(recipient=supplier).exists()
    for email in mail.outbox:
        if supplier.email in email.to:
            assert not _named(email.subject + email.body), email.subject

    [inquiry] = [
        json.loads(event.body)
        for event in WebhookEvent.objects.filter(company=hidden["supplier_company"])
        if event.type == "inquiry.created"
    ]
    assert inquiry["data"]["from_company"]["id"] is None
    assert not _named(json.dumps(inquiry))

    api = ApiClient(supplier)
    listed = api.get("/api/v1/conversations").json()["items"][0]
    assert listed["buyer_company"]["id"] is None and listed["buyer_hidden"] is True
    assert not _named(json.dumps(listed))
    messages = api.get(f"/api/v1/conversations/{conversation.pk}/messages").json()["items"]
    assert messages[0]["sender_company_id"] is None and messages[0]["sender_name"] == ""
    assert not _named(json.dumps(messages))


def test_the_supplier_is_not_told_the_name_by_a_reply_or_the_award(hidden):
    buyer, conversation = hidden["buyer"], hidden["conversation"]
    messaging_services.message_send(actor=buyer, conversation=conversation, body="And 5000 pcs?")
    sourcing_services.quotation_award(actor=buyer, quotation=hidden["quotation"])
    for event in WebhookEvent.objects.filter(company=hidden["supplier_company"]):
        assert not _named(event.body), event.type
    assert WebhookEvent.objects.filter(
        company=hidden["supplier_company"], type="quotation.awarded"
    ).exists()


def test_the_buyer_sees_itself_and_is_asked_before_showing_its_name(hidden):
    buyer, conversation = hidden["buyer"], hidden["conversation"]
    client = _signed_in(buyer)
    page = client.get(f"/en/messages/{conversation.pk}/").content.decode()
    assert BUYER_NAME in page and "sees you as “A trading company in Netherlands”" in page
    asked = client.get(f"/zh-hant/messages/{conversation.pk}/show-our-name/")
    assert asked.status_code == 200
    assert "荷蘭" in asked.content.decode() and "公開我們的公司名稱" in asked.content.decode()
    # Nothing is shown by opening the question; the supplier still reads no name.
    conversation.refresh_from_db()
    assert conversation.buyer_hidden

    response = client.post(f"/en/messages/{conversation.pk}/show-our-name/")
    assert response.status_code == 302
    conversation.refresh_from_db()
    assert not conversation.buyer_hidden
    supplier_page = _signed_in(hidden["supplier"]).get(f"/en/messages/{conversation.pk}/")
    assert BUYER_NAME in supplier_page.content.decode()


def test_only_the_buyer_may_show_its_name(hidden):
    conversation = hidden["conversation"]
    supplier_client = _signed_in(hidden["supplier"])
    response = supplier_client.post(f"/en/messages/{conversation.pk}/show-our-name/")
    assert response.status_code == 404
    api = ApiClient(hidden["supplier"])
    refused = api.post(f"/api/v1/conversations/{conversation.pk}/show-buyer")
    assert refused.status_code == 403
    assert refused["Content-Type"] == "application/problem+json"
    conversation.refresh_from_db()
    assert conversation.buyer_hidden

    shown = ApiClient(hidden["buyer"]).post(f"/api/v1/conversations/{conversation.pk}/show-buyer")
    assert shown.status_code == 200 and shown.json()["buyer_hidden"] is False
    listed = api.get(f"/api/v1/conversations/{conversation.pk}").json()
    assert listed["buyer_company"]["name"] == BUYER_NAME


def test_a_request_that_shows_its_buyer_names_it_in_the_conversation():
    buyer = make_user(full_name=BUYER_PERSON)
    make_company(owner=buyer, legal_name=BUYER_NAME, country="NL")
    supplier, _company = make_trader()
    request = make_request(actor=buyer, reveal_identity=True)
    quotation = make_quotation(request, actor=supplier)
    conversation = sourcing_services.quotation_question(
        actor=buyer, quotation=quotation, message="Hello"
    )
    assert not conversation.buyer_hidden
    page = _signed_in(supplier).get(f"/en/messages/{conversation.pk}/").content.decode()
    assert BUYER_NAME in page and BUYER_PERSON in page

"""The buyer asks a quoting supplier a question: service, page and API."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import PASSWORD, make_operator, make_user
from tests.factories.companies import add_member, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.tokens import token_create
from tradepost.companies.models import Role
from tradepost.messaging.errors import MessagingError
from tradepost.messaging.models import Conversation, Message
from tradepost.notify.models import Notification, NotificationKind
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError

pytestmark = pytest.mark.django_db


@pytest.fixture
def deal():
    buyer, buyer_company = make_trader(country="NL")
    request = make_request(actor=buyer, title="Vacuum flasks 500 ml")
    supplier, supplier_company = make_trader()
    quotation = make_quotation(request, actor=supplier)
    other_supplier, _other = make_trader()
    other_quotation = make_quotation(request, actor=other_supplier)
    Notification.objects.all().delete()
    return {
        "buyer": buyer,
        "buyer_company": buyer_company,
        "request": request,
        "supplier": supplier,
        "supplier_company": supplier_company,
        "quotation": quotation,
        "other_supplier": other_supplier,
        "other_quotation": other_quotation,
    }


# --- service -----------------------------------------------------------------------------------


def test_question_opens_a_conversation_linked_to_the_request(deal):
    conversation = services.quotation_question(
        actor=deal["buyer"], quotation=deal["quotation"], message="Can you print our logo?"
    )
    conversation.refresh_from_db()
    assert conversation.request_link.request_id == deal["request"].pk
    assert conversation.buyer_company_id == deal["buyer_company"].pk
    assert conversation.supplier_company_id == deal["supplier_company"].pk
    assert conversation.subject == "Vacuum flasks 500 ml"
    assert [m.body for m in conversation.messages.all()] == ["Can you print our logo?"]
    assert Notification.objects.get(recipient=deal["supplier"]).kind == (
        NotificationKind.NEW_INQUIRY
    )
    assert not Notification.objects.filter(recipient=deal["other_supplier"]).exists()


def test_a_second_question_reuses_the_conversation(deal):
    first = services.quotation_question(
        actor=deal["buyer"], quotation=deal["quotation"], message="First question"
    )
    colleague = add_member(deal["buyer_company"])
    second = services.quotation_question(
        actor=colleague, quotation=deal["quotation"], message="Second question"
    )
    assert first.pk == second.pk
    assert Conversation.objects.count() == 1
    assert list(second.messages.values_list("body", flat=True)) == [
        "First question",
        "Second question",
    ]
    # the other supplier gets its own conversation
    third = services.quotation_question(
        actor=deal["buyer"], quotation=deal["other_quotation"], message="And you?"
    )
    assert third.pk != first.pk
    assert third.supplier_company_id == deal["other_quotation"].supplier_id


def test_an_inquiry_from_a_product_is_not_reused(deal):
    Conversation.objects.create(
        buyer_company=deal["buyer_company"],
        buyer_user=deal["buyer"],
        supplier_company=deal["supplier_company"],
        subject="Earlier inquiry",
        created_at=deal["request"].created_at,
        last_message_at=deal["request"].created_at,
    )
    conversation = services.quotation_question(
        actor=deal["buyer"], quotation=deal["quotation"], message="About your quotation"
    )
    assert conversation.subject == "Vacuum flasks 500 ml"
    assert Conversation.objects.count() == 2


@pytest.mark.parametrize("message", ["", "   ", "x" * 5001, None, 42])
def test_bad_messages_are_refused_and_nothing_is_saved(deal, message):
    with pytest.raises(MessagingError):
        services.quotation_question(
            actor=deal["buyer"], quotation=deal["quotation"], message=message
        )
    assert Conversation.objects.count() == 0
    assert Message.objects.count() == 0


def test_the_supplier_cannot_ask_itself_and_strangers_cannot_ask(deal):
    stranger, _company = make_trader(country="DE")
    for actor in (deal["supplier"], deal["other_supplier"], stranger):
        with pytest.raises(SourcingError):
            services.quotation_question(actor=actor, quotation=deal["quotation"], message="Hi")
    assert Conversation.objects.count() == 0


def test_script_is_stored_as_plain_text(deal):
    conversation = services.quotation_question(
        actor=deal["buyer"], quotation=deal["quotation"], message="<script>alert(1)</script>"
    )
    client = Client()
    client.login(email=deal["supplier"].email, password=PASSWORD)
    with translation.override("en"):
        url = reverse("messaging:detail", kwargs={"conversation_id": conversation.pk})
    page = client.get(url)
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in page.text


# --- page --------------------------------------------------------------------------------------


def _url(name, **kwargs):
    with translation.override("en"):
        return reverse(name, kwargs=kwargs)


def test_compare_page_offers_the_question_form(client, deal):
    client.login(email=deal["buyer"].email, password=PASSWORD)
    page = client.get(_url("sourcing:compare", pk=deal["request"].pk))
    assert page.status_code == 200
    assert _url("sourcing:ask", pk=deal["quotation"].pk) in page.text
    assert "Ask a question" in page.text


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_compare_page_renders_in_chinese(client, deal, language):
    client.login(email=deal["buyer"].email, password=PASSWORD)
    with translation.override(language):
        url = reverse("sourcing:compare", kwargs={"pk": deal["request"].pk})
    assert client.get(url).status_code == 200


def test_asking_through_the_page_goes_to_the_conversation(client, deal):
    client.login(email=deal["buyer"].email, password=PASSWORD)
    response = client.post(
        _url("sourcing:ask", pk=deal["quotation"].pk), {"message": "What is the lead time?"}
    )
    conversation = Conversation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == _url("messaging:detail", conversation_id=conversation.pk)
    assert conversation.request_link.request_id == deal["request"].pk
    page = client.get(response["Location"])
    assert _url("sourcing:request_detail", pk=deal["request"].pk) in page.content.decode()


def test_an_empty_question_through_the_page_returns_to_the_comparison(client, deal):
    client.login(email=deal["buyer"].email, password=PASSWORD)
    response = client.post(_url("sourcing:ask", pk=deal["quotation"].pk), {"message": ""})
    assert response.status_code == 302
    assert response["Location"] == _url("sourcing:compare", pk=deal["request"].pk)
    assert Conversation.objects.count() == 0


def test_page_permissions(client, deal):
    url = _url("sourcing:ask", pk=deal["quotation"].pk)
    assert client.post(url, {"message": "Hi"}).status_code == 302  # to the login page
    assert client.get(url).status_code in (302, 405)
    stranger, _company = make_trader(country="DE")
    for user in (deal["supplier"], stranger, make_operator()):
        client.login(email=user.email, password=PASSWORD)
        assert client.post(url, {"message": "Hi"}).status_code == 404
        client.logout()
    client.login(email=deal["buyer"].email, password=PASSWORD)
    assert client.post(_url("sourcing:ask", pk=999999), {"message": "Hi"}).status_code == 404
    assert Conversation.objects.count() == 0


# --- API ---------------------------------------------------------------------------------------


def _ask(user, quotation_id, body):
    headers = {}
    if user is not None:
        _token, secret = token_create(user=user, name="tests")
        headers = {"Authorization": f"Bearer {secret}"}
    return Client().post(
        f"/api/v1/requests/quotations/{quotation_id}/ask",
        json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def test_api_ask_opens_then_reuses_the_conversation(deal):
    first = _ask(deal["buyer"], deal["quotation"].pk, {"message": "Can you send a sample?"})
    assert first.status_code == 201
    data = first.json()
    assert data["buying_request_id"] == deal["request"].pk
    second = _ask(deal["buyer"], deal["quotation"].pk, {"message": "And the carton size?"})
    assert second.status_code == 201
    assert second.json()["conversation_id"] == data["conversation_id"]
    conversation = Conversation.objects.get(pk=data["conversation_id"])
    assert conversation.messages.count() == 2


@pytest.mark.parametrize(
    "body", [{}, {"message": ""}, {"message": "x" * 5001}, {"message": ["a"]}, {"text": "hi"}]
)
def test_api_bad_input_is_422_and_saves_nothing(deal, body):
    response = _ask(deal["buyer"], deal["quotation"].pk, body)
    assert response.status_code == 422
    assert Conversation.objects.count() == 0


def test_api_permission_matrix(deal):
    stranger, _company = make_trader(country="DE")
    admin = add_member(deal["buyer_company"], role=Role.ADMIN)
    member = add_member(deal["buyer_company"], role=Role.MEMBER)
    body = {"message": "Hello"}
    assert _ask(None, deal["quotation"].pk, body).status_code == 401
    for user in (deal["supplier"], deal["other_supplier"], stranger, make_operator()):
        assert _ask(user, deal["quotation"].pk, body).status_code == 404
    assert _ask(deal["buyer"], 999999, body).status_code == 404
    assert Conversation.objects.count() == 0
    assert _ask(admin, deal["quotation"].pk, body).status_code == 201
    assert _ask(member, deal["quotation"].pk, body).status_code == 201
    assert _ask(deal["buyer"], deal["quotation"].pk, body).status_code == 201
    assert Conversation.objects.count() == 1


def test_api_rate_limit_answers_429(deal, settings):
    settings.TRADEPOST_MESSAGES_PER_HOUR = 1
    assert _ask(deal["buyer"], deal["quotation"].pk, {"message": "One"}).status_code == 201
    response = _ask(deal["buyer"], deal["quotation"].pk, {"message": "Two"})
    assert response.status_code == 429
    assert Message.objects.count() == 1


def test_unverified_buyer_cannot_ask(deal):
    unverified = make_user(verified=False)
    deal["buyer_company"].memberships.create(user=unverified, role=Role.MEMBER)
    assert _ask(unverified, deal["quotation"].pk, {"message": "Hi"}).status_code in (403, 404)
    assert Conversation.objects.count() == 0

"""The link from a conversation to the buying request it is about (ADR 0015): a foreign key
owned by the sourcing app, carried over from the old bare integer by a migration."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import PASSWORD, make_operator
from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.tokens import token_create
from tradepost.companies.services import company_delete_by_operator
from tradepost.messaging.models import Conversation, Message
from tradepost.sourcing import services
from tradepost.sourcing.models import BuyingRequest, RequestConversation
from tradepost.sourcing.selectors import request_id_of_conversation

BEFORE_LINK = [
    ("messaging", "0002_message_attachments"),
    ("sourcing", "0007_request_conversation"),
]


def _deal():
    buyer, buyer_company = make_trader(country="NL")
    request = make_request(actor=buyer, title="Vacuum flasks 500 ml")
    supplier, _supplier_company = make_trader()
    quotation = make_quotation(request, actor=supplier)
    conversation = services.quotation_question(
        actor=buyer, quotation=quotation, message="Can you print our logo?"
    )
    return buyer, buyer_company, request, supplier, conversation


def _api_get(user, path):
    _token, secret = token_create(user=user, name="tests")
    return Client().get(path, headers={"Authorization": f"Bearer {secret}"})


def _page(user, conversation):
    client = Client()
    client.login(email=user.email, password=PASSWORD)
    with translation.override("en"):
        url = reverse("messaging:detail", kwargs={"conversation_id": conversation.pk})
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _request_url(request_id):
    with translation.override("en"):
        return reverse("sourcing:request_detail", kwargs={"pk": request_id})


@pytest.mark.django_db
def test_the_link_is_read_by_the_api_and_the_page():
    buyer, _company, request, supplier, conversation = _deal()
    assert request_id_of_conversation(conversation_id=conversation.pk) == request.pk
    listed = _api_get(buyer, "/api/v1/conversations").json()["items"]
    assert [item["buying_request_id"] for item in listed] == [request.pk]
    one = _api_get(supplier, f"/api/v1/conversations/{conversation.pk}").json()
    assert one["buying_request_id"] == request.pk
    assert _request_url(request.pk) in _page(supplier, conversation)


@pytest.mark.django_db
def test_deleting_a_request_keeps_its_conversations_and_drops_the_link():
    buyer, _company, request, _supplier, conversation = _deal()
    request_id = request.pk
    request.delete()
    conversation.refresh_from_db()  # still there, with its messages
    assert list(
        Message.objects.filter(conversation=conversation).values_list("body", flat=True)
    ) == ["Can you print our logo?"]
    assert not RequestConversation.objects.exists()
    one = _api_get(buyer, f"/api/v1/conversations/{conversation.pk}").json()
    assert one["buying_request_id"] is None
    assert [
        i["buying_request_id"] for i in _api_get(buyer, "/api/v1/conversations").json()["items"]
    ] == [None]
    assert _request_url(request_id) not in _page(buyer, conversation)


@pytest.mark.django_db
def test_deleting_the_buyer_company_deletes_requests_conversations_and_links():
    _buyer, buyer_company, _request, _supplier, _conversation = _deal()
    company_delete_by_operator(actor=make_operator(), company=buyer_company)
    assert not BuyingRequest.objects.exists()
    assert not Conversation.objects.exists()
    assert not RequestConversation.objects.exists()


@pytest.mark.django_db
def test_a_link_to_a_missing_request_breaks_referential_integrity():
    conversation = make_conversation(make_parties())
    with pytest.raises(IntegrityError), transaction.atomic():
        RequestConversation.objects.create(conversation=conversation, request_id=10**9)
        # Foreign keys are checked at commit; check now, as the commit would.
        connection.check_constraints(table_names=[RequestConversation._meta.db_table])


@pytest.mark.django_db
def test_a_conversation_is_about_one_request_at_most():
    _buyer, _company, _request, _supplier, conversation = _deal()
    other = make_request()
    with pytest.raises(IntegrityError), transaction.atomic():
        RequestConversation.objects.create(conversation=conversation, request=other)


@pytest.mark.django_db(transaction=True)
def test_the_migration_carries_ids_over_and_drops_dangling_ones():
    _buyer, _company, request, _supplier, linked = _deal()
    dangling = make_conversation(make_parties())
    plain = make_conversation(make_parties())

    # Back to the bare integer: the links are moved into the column.
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_LINK)
    old_apps = executor.loader.project_state(BEFORE_LINK).apps
    assert not old_apps.get_model("sourcing", "RequestConversation").objects.exists()
    old = old_apps.get_model("messaging", "Conversation")
    assert old.objects.get(pk=linked.pk).buying_request_id == request.pk
    assert old.objects.get(pk=plain.pk).buying_request_id is None
    old.objects.filter(pk=dangling.pk).update(buying_request_id=10**9)

    # Forward again: a link for the id that names a request; the dangling id is dropped.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(RequestConversation.objects.values_list("conversation_id", "request_id")) == {
        linked.pk: request.pk
    }
    assert Conversation.objects.filter(pk__in=[linked.pk, dangling.pk, plain.pk]).count() == 3

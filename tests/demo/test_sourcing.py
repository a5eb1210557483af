"""The demo marketplace's buying requests, quotations and conversations."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from tradepost.catalog.models import Product
from tradepost.demo.generator import DEFAULT_SEED, build_plan
from tradepost.demo.selectors import leaf_categories
from tradepost.demo.services import demo_password
from tradepost.demo.sourcing import DEMO_BUYER, DEMO_SUPPLIER, plan_sourcing
from tradepost.demo.vocabulary import load_vocabulary
from tradepost.messaging.models import Conversation
from tradepost.notify.models import Notification
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, QuoteUsage

SMALL = ["--companies", "30", "--products", "200"]


def _plans(seed: int):
    vocab = load_vocabulary()
    plan = build_plan(seed=seed, companies=30, products=200, vocab=vocab, leaves=leaf_categories())
    return plan, plan_sourcing(
        seed=seed, vocab=vocab, companies=plan.companies, products=plan.products
    )


def test_requests_follow_the_seed(category_tree):
    _first_plan, first = _plans(DEFAULT_SEED)
    _plan, again = _plans(DEFAULT_SEED)
    _other_plan, other = _plans(DEFAULT_SEED + 1)
    assert first == again
    assert [r.title for r in first] != [r.title for r in other]
    assert len(first) == 40
    # the demo buyer's three requests come first, one of them quoted by the demo supplier
    assert [r.buyer_index for r in first[:3]] == [DEMO_BUYER] * 3
    assert [r.state for r in first[:3]] == ["open", "awarded", "expired"]
    assert first[0].quotations[0].supplier_index == DEMO_SUPPLIER
    assert first[0].conversations and first[0].conversations[0].quotation_position == 0
    for request in first:
        assert all(q.supplier_index != request.buyer_index for q in request.quotations)
        suppliers = [q.supplier_index for q in request.quotations]
        assert len(suppliers) == len(set(suppliers)) <= 10


def test_two_companies_are_enough(category_tree):
    vocab = load_vocabulary()
    plan = build_plan(seed=1, companies=2, products=10, vocab=vocab, leaves=leaf_categories())
    requests = plan_sourcing(seed=1, vocab=vocab, companies=plan.companies, products=plan.products)
    assert len(requests) <= 4
    for request in requests:
        assert request.buyer_index == DEMO_BUYER
        assert {q.supplier_index for q in request.quotations} <= {DEMO_SUPPLIER}


@pytest.fixture
def loaded(category_tree, shared_media):
    out = io.StringIO()
    call_command("demo", *SMALL, stdout=out)
    return out.getvalue()


def _url(name, **kwargs):
    with translation.override("en"):
        return reverse(name, kwargs=kwargs or None)


def test_demo_has_open_awarded_and_expired_requests_with_quotations(loaded):
    now = timezone.now()
    requests = list(BuyingRequest.objects.select_related("buyer", "awarded_quotation"))
    assert len(requests) == 40
    assert "Buying requests: 40" in loaded
    statuses = Counter(r.status for r in requests)
    assert statuses["open"] >= 10 and statuses["awarded"] >= 3 and statuses["expired"] >= 3
    languages = Counter(r.original_language for r in requests)
    assert languages["en"] and languages["zh-hans"] + languages["zh-hant"]
    quotations = list(Quotation.objects.select_related("request", "supplier"))
    assert len(quotations) >= len(requests)
    by_request = Counter(q.request_id for q in quotations)
    for request in requests:
        request.full_clean()
        assert request.quotation_count == by_request[request.pk] >= 1
        assert request.created_at <= now
        if request.status == "open":
            assert request.deadline > now and request.closed_at is None
        elif request.status == "expired":
            assert request.deadline < now and request.closed_at
        else:
            assert request.awarded_quotation.status == QuotationStatus.AWARDED
            assert request.awarded_quotation.request_id == request.pk
            assert request.closed_at <= now
    for quotation in quotations:
        quotation.full_clean()
        assert quotation.supplier_id != quotation.request.buyer_id
        assert quotation.request.created_at <= quotation.created_at <= now
        # suppliers quote on what they list
        assert Product.objects.filter(
            company=quotation.supplier, category_id=quotation.request.category_id
        ).exists()
        if quotation.request.status == "awarded":
            assert quotation.status in {"awarded", "not_selected", "declined"}
    usage = {u.company_id: u.count for u in QuoteUsage.objects.all()}
    assert usage and all(count >= 1 for count in usage.values())


def test_demo_conversations_are_linked_to_requests_and_answered(loaded):
    conversations = list(
        Conversation.objects.select_related("request_link__request").prefetch_related("messages")
    )
    assert len(conversations) >= 3
    for conversation in conversations:
        request = conversation.request_link.request
        assert conversation.buyer_company_id == request.buyer_id
        assert request.quotations.filter(supplier_id=conversation.supplier_company_id).exists()
        messages = list(conversation.messages.all())
        senders = {m.sender_company_id for m in messages}
        assert senders == {conversation.buyer_company_id, conversation.supplier_company_id}
        assert messages[0].sender_company_id == conversation.buyer_company_id
        assert conversation.supplier_first_reply_at is not None
        assert conversation.last_message_at == messages[-1].created_at


def test_demo_logins_see_requests_quotations_and_a_conversation(loaded):
    buyer_client, supplier_client = Client(), Client()
    assert buyer_client.login(email="buyer@demo.example", password=demo_password("buyer"))
    assert supplier_client.login(email="supplier@demo.example", password=demo_password("supplier"))
    mine = buyer_client.get(_url("sourcing:my_requests"))
    assert mine.status_code == 200
    open_request = (
        BuyingRequest.objects.filter(buyer__memberships__user__email="buyer@demo.example")
        .order_by("pk")
        .first()
    )
    assert open_request.title in mine.text
    compare = buyer_client.get(_url("sourcing:compare", pk=open_request.pk))
    assert compare.status_code == 200
    assert "Ask a question" in compare.text
    conversation = Conversation.objects.get(request_link__request=open_request)
    assert buyer_client.get(_url("messaging:inbox")).status_code == 200
    assert (
        supplier_client.get(_url("messaging:detail", conversation_id=conversation.pk)).status_code
        == 200
    )
    quotes = supplier_client.get(_url("sourcing:my_quotations"))
    assert quotes.status_code == 200
    assert open_request.title in quotes.text
    assert Notification.objects.filter(recipient__email="buyer@demo.example").exists()
    assert Notification.objects.filter(recipient__email="supplier@demo.example").exists()

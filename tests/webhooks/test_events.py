"""The places that emit events (messaging, sourcing, the catalogue) record them for the
company told, in their own transaction, with the documented data (docs/webhooks.md)."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.utils import timezone

from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tests.factories.webhooks import stored_endpoint
from tests.webhooks.docs_code import DOC
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import ProductStatus
from tradepost.core import events
from tradepost.core.events import EventType, emit
from tradepost.messaging import services as messaging_services
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.models import MatchAlert
from tradepost.sourcing.tasks import match_alerts_send_due
from tradepost.webhooks.models import WebhookDelivery, WebhookEvent

pytestmark = pytest.mark.django_db

HOOK = "https://erp.example.com/hooks"


def recorded(company, event_type: str) -> list[dict]:
    return [
        json.loads(event.body)
        for event in WebhookEvent.objects.filter(company=company, type=event_type).order_by("pk")
    ]


def test_every_event_type_is_documented():
    doc = DOC.read_text(encoding="utf-8")
    for event_type in EventType.values:
        assert f"`{event_type}`" in doc


def test_an_inquiry_and_a_reply_are_told_to_the_other_company():
    parties = make_parties()
    stored_endpoint(parties.supplier_company, HOOK)
    stored_endpoint(parties.buyer_company, HOOK)
    conversation = make_conversation(parties, message="Price for 1000 pieces?")

    [inquiry] = recorded(parties.supplier_company, "inquiry.created")
    assert inquiry["company_id"] == parties.supplier_company.pk
    data = inquiry["data"]
    assert data["conversation"] == {"id": conversation.pk, "subject": conversation.subject}
    assert data["message"]["body"] == "Price for 1000 pieces?"
    assert data["from_company"]["id"] == parties.buyer_company.pk
    assert data["product"] == {"id": parties.product.pk, "title": "Vacuum flask 500ml"}
    assert (data["quantity"], data["unit"]) == ("1000", "pieces")
    assert recorded(parties.buyer_company, "inquiry.created") == []

    messaging_services.message_send(
        actor=parties.supplier_owner, conversation=conversation, body="US$2.10 FOB Ningbo."
    )
    [reply] = recorded(parties.buyer_company, "message.created")
    assert reply["data"]["message"]["body"] == "US$2.10 FOB Ningbo."
    assert reply["data"]["from_company"]["id"] == parties.supplier_company.pk
    assert recorded(parties.supplier_company, "message.created") == []


def test_a_quotation_is_told_to_the_buyer_and_an_award_to_the_supplier():
    buyer, buyer_company = make_trader(country="NL")
    supplier, supplier_company = make_trader()
    stored_endpoint(buyer_company, HOOK)
    stored_endpoint(supplier_company, HOOK)
    request = make_request(actor=buyer, title="Vacuum flasks", reveal_identity=True)
    quotation = make_quotation(request, actor=supplier, unit_price="2.30")
    make_quotation(request, actor=supplier, unit_price="2.20")  # a revision

    first, revised = recorded(buyer_company, "quotation.received")
    assert first["data"]["request"] == {"id": request.pk, "title": "Vacuum flasks"}
    assert first["data"]["quotation"]["id"] == quotation.pk
    assert (first["data"]["quotation"]["revision"], revised["data"]["quotation"]["revision"]) == (
        1,
        2,
    )
    assert revised["data"]["quotation"]["unit_price"] == "2.2000"
    assert first["data"]["from_company"]["id"] == supplier_company.pk

    sourcing_services.quotation_award(actor=buyer, quotation=quotation)
    [award] = recorded(supplier_company, "quotation.awarded")
    assert award["data"]["quotation"]["id"] == quotation.pk
    assert award["data"]["buyer"]["id"] == buyer_company.pk
    assert recorded(buyer_company, "quotation.awarded") == []


def test_an_award_of_a_request_that_hides_its_buyer_does_not_name_it():
    buyer, _company = make_trader(country="NL", business_types=["wholesaler"])
    supplier, supplier_company = make_trader()
    stored_endpoint(supplier_company, HOOK)
    request = make_request(actor=buyer, reveal_identity=False)
    quotation = make_quotation(request, actor=supplier)
    sourcing_services.quotation_award(actor=buyer, quotation=quotation)
    [award] = recorded(supplier_company, "quotation.awarded")
    assert award["data"]["buyer"] == {
        "id": None,
        "slug": None,
        "name": "A wholesaler in Netherlands",
    }


def test_publishing_a_product_is_told_to_its_company():
    owner, company = make_trader()
    stored_endpoint(company, HOOK)
    product = make_product(company=company, status=ProductStatus.DRAFT, sku="VF-500")
    catalog_services.product_publish(actor=owner, product=product)
    catalog_services.product_publish(actor=owner, product=product)  # already public: once
    [event] = recorded(company, "product.published")
    assert event["data"]["product"]["id"] == product.pk
    assert event["data"]["product"]["sku"] == "VF-500"


def test_a_matching_request_is_told_to_the_supplier_when_its_alert_is_sent():
    buyer, _buyer_company = make_trader(country="NL")
    _supplier, supplier_company = make_trader()
    stored_endpoint(supplier_company, HOOK)
    request = make_request(actor=buyer, title="Ballpoint pens")
    MatchAlert.objects.create(
        request=request,
        company=supplier_company,
        first_look=True,
        due_at=timezone.now(),
        created_at=timezone.now(),
    )
    match_alerts_send_due()
    [event] = recorded(supplier_company, "request.matched")
    assert event["data"]["request"]["id"] == request.pk
    assert event["data"]["request"]["title"] == "Ballpoint pens"
    assert event["data"]["first_look"] is True


@pytest.mark.django_db(transaction=True)
def test_an_event_outside_a_transaction_is_a_programming_error(cast):
    """Emitted in autocommit, it could announce a change that rolled back."""
    with pytest.raises(RuntimeError):
        emit(EventType.PRODUCT_PUBLISHED, company_id=cast.company.pk, payload={})


def test_an_unknown_event_type_is_refused(cast):
    with pytest.raises(ValueError), transaction.atomic():
        emit("product.exploded", company_id=cast.company.pk, payload={})


def test_without_an_endpoint_nothing_is_written(cast, django_assert_num_queries):
    with transaction.atomic(), django_assert_num_queries(1):
        emit(EventType.PRODUCT_PUBLISHED, company_id=cast.company.pk, payload={"x": 1})
    assert not WebhookEvent.objects.exists() and not WebhookDelivery.objects.exists()


def test_the_recorder_is_installed_by_the_webhooks_app():
    from tradepost.webhooks.outbox import record_event

    assert events._recorder is record_event

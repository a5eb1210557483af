"""Concurrent senders on real connections (PostgreSQL only: SQLite runs one write transaction
at a time, so there the limits hold by construction; test_services checks the boundaries)."""

from __future__ import annotations

from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tests.races import ON_CONCURRENT_WRITERS
from tradepost.messaging import services
from tradepost.messaging.errors import MessagingErrorCode, RateLimited
from tradepost.messaging.models import Conversation, Message

pytestmark = ON_CONCURRENT_WRITERS


def test_two_inquiries_for_the_last_one_of_the_hour(settings, race):
    settings.TRADEPOST_INQUIRIES_PER_HOUR = 2
    p = make_parties()
    services.inquiry_send(actor=p.buyer, company=make_company(), message="first")
    a, b = make_company(), make_company()
    results = race(
        lambda: services.inquiry_send(actor=p.buyer, company=a, message="to a"),
        lambda: services.inquiry_send(actor=p.buyer, company=b, message="to b"),
    )
    errors = [r for r in results if isinstance(r, RateLimited)]
    assert len(errors) == 1, results
    assert errors[0].code == MessagingErrorCode.INQUIRY_RATE_LIMIT
    assert Conversation.objects.filter(buyer_user=p.buyer).count() == 2


def test_many_messages_against_the_hourly_limit(settings, race):
    settings.TRADEPOST_MESSAGES_PER_HOUR = 3
    p = make_parties()
    conversation = make_conversation(p)  # one of three used
    results = race(
        *[
            (
                lambda n=n: services.message_send(
                    actor=p.buyer, conversation=conversation, body=f"{n}"
                )
            )
            for n in range(5)
        ]
    )
    assert len([r for r in results if isinstance(r, RateLimited)]) == 3, results
    assert Message.objects.filter(sender_user=p.buyer).count() == 3


def test_both_sides_writing_in_one_conversation_at_once_never_deadlock(settings, race):
    # Each sender's row is locked (rate limits), then the conversation; the message notifies
    # the other side, whose user rows the other sender holds. The locks must not cross.
    settings.TRADEPOST_MESSAGES_PER_HOUR = 1000
    p = make_parties()
    conversation = make_conversation(p)
    senders = [p.buyer, p.supplier_member, p.buyer_colleague]
    results = race(
        *[
            (
                lambda n=n, who=who: services.message_send(
                    actor=who, conversation=conversation, body=f"{who.pk}-{n}"
                )
            )
            for n in range(6)
            for who in senders
        ]
    )
    failures = [r for r in results if isinstance(r, Exception)]
    assert not failures, failures
    assert Message.objects.filter(conversation=conversation).count() == 1 + 6 * len(senders)

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from freezegun import freeze_time

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tradepost.accounts.models import ThrottleHit
from tradepost.accounts.throttle import throttle
from tradepost.catalog.models import ProductStatus
from tradepost.messaging import selectors, services
from tradepost.messaging.errors import (
    ConversationNotFound,
    MessagingError,
    MessagingErrorCode,
    RateLimited,
)
from tradepost.messaging.models import MESSAGE_MAX_LENGTH, Conversation, Message
from tradepost.notify.models import Notification, NotificationKind
from tradepost.sourcing.responsiveness import supplier_responsiveness
from tradepost.sourcing.selectors import request_id_of_conversation

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def _counts() -> tuple[int, int, int]:
    return Conversation.objects.count(), Message.objects.count(), Notification.objects.count()


def test_inquiry_opens_a_conversation_between_the_two_companies():
    p = make_parties()
    conversation = make_conversation(p)
    assert conversation.buyer_company == p.buyer_company
    assert conversation.buyer_user == p.buyer
    assert conversation.supplier_company == p.supplier_company
    assert conversation.product == p.product
    assert conversation.subject == "Vacuum flask 500ml"
    assert conversation.quantity == Decimal("1000")
    assert conversation.unit == "pieces"
    assert request_id_of_conversation(conversation_id=conversation.pk) is None
    (message,) = conversation.messages.all()
    assert message.sender_company == p.buyer_company
    assert message.body == "Price for 1000 pieces?"
    # Every member of the supplier company is told, nobody on the buyer side.
    notified = set(Notification.objects.values_list("recipient_id", "kind"))
    assert notified == {
        (p.supplier_owner.pk, NotificationKind.NEW_INQUIRY),
        (p.supplier_member.pk, NotificationKind.NEW_INQUIRY),
    }


def test_inquiry_to_a_company_without_product():
    p = make_parties()
    conversation = services.inquiry_send(
        actor=p.buyer, company=p.supplier_company, message="Do you make  custom\nlogos?"
    )
    assert conversation.product is None
    assert conversation.subject == "Do you make custom logos?"
    assert conversation.quantity is None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("", MessagingErrorCode.EMPTY_BODY),
        ("   \n\t ", MessagingErrorCode.EMPTY_BODY),
        (None, MessagingErrorCode.EMPTY_BODY),
        (12, MessagingErrorCode.EMPTY_BODY),
        ("x" * (MESSAGE_MAX_LENGTH + 1), MessagingErrorCode.BODY_TOO_LONG),
    ],
)
def test_bad_bodies_are_refused_and_nothing_is_saved(body, code):
    p = make_parties()
    before = _counts()
    with pytest.raises(MessagingError) as caught:
        services.inquiry_send(actor=p.buyer, product=p.product, message=body)
    assert caught.value.code == code
    assert _counts() == before


def test_longest_body_is_accepted():
    p = make_parties()
    conversation = make_conversation(p, message="x" * MESSAGE_MAX_LENGTH)
    assert len(conversation.messages.get().body) == MESSAGE_MAX_LENGTH


@pytest.mark.parametrize(
    ("quantity", "unit", "code"),
    [
        ("-5", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("0", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("abc", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("NaN", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("1e30", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("1.0001", "pieces", MessagingErrorCode.INVALID_QUANTITY),
        ("10", "parsecs", MessagingErrorCode.INVALID_UNIT),
        ("10", "", MessagingErrorCode.INVALID_UNIT),
    ],
)
def test_bad_quantities_are_refused(quantity, unit, code):
    p = make_parties()
    before = _counts()
    with pytest.raises(MessagingError) as caught:
        services.inquiry_send(
            actor=p.buyer, product=p.product, quantity=quantity, unit=unit, message="Hi"
        )
    assert caught.value.code == code
    assert _counts() == before


def test_script_tags_are_stored_as_text():
    p = make_parties()
    conversation = make_conversation(p, message="<script>alert(1)</script> hi")
    assert conversation.messages.get().body == "<script>alert(1)</script> hi"


def test_nul_characters_are_removed():
    p = make_parties()
    conversation = make_conversation(p, message="a\x00b")
    assert conversation.messages.get().body == "ab"


def test_user_without_company_cannot_inquire():
    p = make_parties()
    loner = make_user()
    before = _counts()
    with pytest.raises(MessagingError) as caught:
        services.inquiry_send(actor=loner, product=p.product, message="Hello")
    assert caught.value.code == MessagingErrorCode.NO_COMPANY
    assert _counts() == before


def test_cannot_inquire_own_company():
    p = make_parties()
    before = _counts()
    with pytest.raises(MessagingError) as caught:
        services.inquiry_send(actor=p.supplier_member, product=p.product, message="Hi")
    assert caught.value.code == MessagingErrorCode.OWN_COMPANY
    with pytest.raises(MessagingError):
        services.inquiry_send(actor=p.supplier_owner, company=p.supplier_company, message="Hi")
    assert _counts() == before


def test_unpublished_product_cannot_be_inquired():
    p = make_parties()
    draft = make_product(company=p.supplier_company, status=ProductStatus.DRAFT)
    with pytest.raises(MessagingError) as caught:
        services.inquiry_send(actor=p.buyer, product=draft, message="Hi")
    assert caught.value.code == MessagingErrorCode.TARGET_NOT_FOUND


def test_reply_updates_the_conversation_and_notifies_the_other_side():
    p = make_parties()
    conversation = make_conversation(p)
    Notification.objects.all().delete()
    reply = services.message_send(
        actor=p.supplier_member, conversation=conversation, body="USD 2.80 FOB Ningbo"
    )
    conversation.refresh_from_db()
    assert reply.sender_company == p.supplier_company
    assert conversation.last_message_at == reply.created_at
    assert conversation.supplier_first_reply_at == reply.created_at
    notified = set(Notification.objects.values_list("recipient_id", "kind"))
    assert notified == {
        (p.buyer.pk, NotificationKind.NEW_MESSAGE),
        (p.buyer_colleague.pk, NotificationKind.NEW_MESSAGE),
    }
    # A second reply keeps the first reply time.
    services.message_send(actor=p.supplier_owner, conversation=conversation, body="More")
    conversation.refresh_from_db()
    assert conversation.supplier_first_reply_at == reply.created_at


def test_non_participants_cannot_write():
    p = make_parties()
    conversation = make_conversation(p)
    outsider = make_user()
    make_company(owner=outsider)
    operator = make_operator()
    before = _counts()
    with pytest.raises(ConversationNotFound):
        services.message_send(actor=outsider, conversation=conversation, body="Hi")
    with pytest.raises(ConversationNotFound):
        services.message_send(actor=make_user(), conversation=conversation, body="Hi")
    with pytest.raises(MessagingError) as caught:
        services.message_send(actor=operator, conversation=conversation, body="Hi")
    assert caught.value.code == MessagingErrorCode.NOT_PARTICIPANT
    with pytest.raises(ConversationNotFound):
        services.conversation_mark_read(actor=outsider, conversation=conversation)
    assert _counts() == before


def test_unread_counts_are_shared_by_the_members_of_a_company():
    p = make_parties()
    conversation = make_conversation(p)
    # The sender's own side has nothing unread; both supplier members see one.
    assert selectors.unread_message_count(user=p.buyer) == 0
    assert selectors.unread_message_count(user=p.buyer_colleague) == 0
    assert selectors.unread_message_count(user=p.supplier_owner) == 1
    assert selectors.unread_message_count(user=p.supplier_member) == 1
    services.message_send(actor=p.buyer_colleague, conversation=conversation, body="And 2000?")
    assert selectors.unread_message_count(user=p.supplier_member) == 2
    (row,) = selectors.inbox(user=p.supplier_owner)
    assert row.unread == 2
    # One member reads: the company has read it, for the other member too.
    services.conversation_mark_read(actor=p.supplier_member, conversation=conversation)
    assert selectors.unread_message_count(user=p.supplier_owner) == 0
    (row,) = selectors.inbox(user=p.supplier_owner)
    assert row.unread == 0
    services.message_send(actor=p.supplier_owner, conversation=conversation, body="Yes")
    assert selectors.unread_message_count(user=p.buyer) == 1
    assert selectors.unread_message_count(user=p.supplier_member) == 0
    assert selectors.unread_in(conversation, company_id=p.buyer_company.pk) == 1


def test_operator_reading_changes_no_read_mark():
    p = make_parties()
    conversation = make_conversation(p)
    services.conversation_mark_read(actor=make_operator(), conversation=conversation)
    assert selectors.unread_message_count(user=p.supplier_owner) == 1


# --- abuse limits ---------------------------------------------------------------------------


def test_inquiry_limit_per_hour_at_the_boundary(settings):
    settings.TRADEPOST_INQUIRIES_PER_HOUR = 3
    p = make_parties()
    suppliers = [make_company() for _ in range(4)]
    for company in suppliers[:3]:
        services.inquiry_send(actor=p.buyer, company=company, message=f"Hi {company.pk}")
    before = _counts()
    with pytest.raises(RateLimited) as caught:
        services.inquiry_send(actor=p.buyer, company=suppliers[3], message="One more")
    assert caught.value.code == MessagingErrorCode.INQUIRY_RATE_LIMIT
    assert _counts() == before
    # A colleague has their own allowance; an hour later the buyer has theirs back.
    services.inquiry_send(actor=p.buyer_colleague, company=suppliers[3], message="From me")
    with freeze_time(timezone.now() + timedelta(hours=1, seconds=1)):
        services.inquiry_send(actor=p.buyer, company=suppliers[3], message="Later")


def test_message_limit_per_hour_at_the_boundary(settings):
    settings.TRADEPOST_MESSAGES_PER_HOUR = 4
    p = make_parties()
    conversation = make_conversation(p)  # the first message counts
    for n in range(3):
        services.message_send(actor=p.buyer, conversation=conversation, body=f"msg {n}")
    before = _counts()
    with pytest.raises(RateLimited) as caught:
        services.message_send(actor=p.buyer, conversation=conversation, body="too many")
    assert caught.value.code == MessagingErrorCode.MESSAGE_RATE_LIMIT
    assert _counts() == before
    services.message_send(actor=p.supplier_owner, conversation=conversation, body="fine")


def test_the_limits_are_counted_by_the_one_rate_limiter(settings, rate_limit_store):
    """Inquiries and messages are counts of `accounts.throttle` (in the database or the
    shared cache): what the service counted, the throttle refuses, and a refusal counts
    nothing."""
    settings.TRADEPOST_INQUIRIES_PER_HOUR = 5
    settings.TRADEPOST_MESSAGES_PER_HOUR = 2
    p = make_parties()
    conversation = make_conversation(p)  # one inquiry, one message
    services.message_send(actor=p.buyer, conversation=conversation, body="second")
    with pytest.raises(RateLimited) as caught:
        services.message_send(actor=p.buyer, conversation=conversation, body="third")
    assert caught.value.code == MessagingErrorCode.MESSAGE_RATE_LIMIT
    assert "2 messages in the last hour" in caught.value.message

    inquiries = services.sender_throttle_key(services.INQUIRY_KEY, p.buyer)
    messages = services.sender_throttle_key(services.MESSAGE_KEY, p.buyer)
    if rate_limit_store == "database":
        hits = ThrottleHit.objects.filter(action=services.THROTTLE_ACTION)
        assert hits.filter(key=inquiries).count() == 1
        assert hits.filter(key=messages).count() == 2
    # The throttle itself holds the counts: the messages' limit is spent, the inquiries' not.
    assert not throttle(action=services.THROTTLE_ACTION, limits=[(messages, 2)], window=HOUR)
    assert throttle(action=services.THROTTLE_ACTION, limits=[(inquiries, 2)], window=HOUR)


def test_an_inquiry_is_refused_by_whichever_limit_is_spent(settings, rate_limit_store):
    settings.TRADEPOST_INQUIRIES_PER_HOUR = 2
    settings.TRADEPOST_MESSAGES_PER_HOUR = 2
    p = make_parties()
    conversation = make_conversation(p)
    services.message_send(actor=p.buyer, conversation=conversation, body="second")
    with pytest.raises(RateLimited) as caught:  # the same limit: the messages' is spent
        services.inquiry_send(actor=p.buyer, company=make_company(), message="Hi")
    assert caught.value.code == MessagingErrorCode.MESSAGE_RATE_LIMIT
    # The refused inquiry took nothing from the inquiries' allowance.
    settings.TRADEPOST_MESSAGES_PER_HOUR = 10
    services.inquiry_send(actor=p.buyer, company=make_company(), message="Hi again")
    with pytest.raises(RateLimited) as caught:
        services.inquiry_send(actor=p.buyer, company=make_company(), message="And again")
    assert caught.value.code == MessagingErrorCode.INQUIRY_RATE_LIMIT
    assert "2 inquiries in the last hour" in caught.value.message


def test_same_text_to_many_companies_is_flagged(settings):
    settings.TRADEPOST_DUPLICATE_MESSAGE_COMPANIES = 5
    p = make_parties()
    suppliers = [make_company() for _ in range(5)]
    text = "Cheap watches!!! Visit example.com"
    for company in suppliers[:4]:
        services.inquiry_send(actor=p.buyer, company=company, message=text)
    # Twice to the same company counts once.
    services.inquiry_send(actor=p.buyer_colleague, company=suppliers[0], message=text)
    assert not Message.objects.filter(flagged=True).exists()
    # A different text is not a copy.
    services.inquiry_send(actor=p.buyer, company=suppliers[4], message="Other text")
    assert not Message.objects.filter(flagged=True).exists()
    # The fifth company (case and spacing folded) flags every copy.
    services.inquiry_send(
        actor=p.buyer_colleague, product=p.product, message="cheap   WATCHES!!! visit example.com"
    )
    assert Message.objects.filter(flagged=True).count() == 6
    assert not Message.objects.get(body="Other text").flagged


def test_copies_older_than_a_day_do_not_count(settings):
    settings.TRADEPOST_DUPLICATE_MESSAGE_COMPANIES = 2
    p = make_parties()
    services.inquiry_send(actor=p.buyer, company=make_company(), message="Same")
    Message.objects.update(created_at=timezone.now() - timedelta(hours=25))
    services.inquiry_send(actor=p.buyer, company=make_company(), message="Same")
    assert not Message.objects.filter(flagged=True).exists()


# --- responsiveness -------------------------------------------------------------------------


def test_supplier_responsiveness():
    p = make_parties()
    now = timezone.now()
    fast = make_conversation(p)
    slow = make_conversation(p, message="second")
    unanswered = make_conversation(p, message="third")
    fresh = make_conversation(p, message="fourth")  # under 24 h, no reply yet: not counted
    Conversation.objects.filter(pk__in=[fast.pk, slow.pk, unanswered.pk]).update(
        created_at=now - timedelta(days=3)
    )
    Conversation.objects.filter(pk=fast.pk).update(
        supplier_first_reply_at=now - timedelta(days=3) + timedelta(hours=2)
    )
    Conversation.objects.filter(pk=slow.pk).update(
        supplier_first_reply_at=now - timedelta(days=3) + timedelta(hours=30)
    )
    assert fresh.supplier_first_reply_at is None
    result = supplier_responsiveness(p.supplier_company, now=now)
    assert result.conversations == 3
    assert result.answered_in_time == 1
    assert result.response_rate_percent == 33
    assert result.median_first_response == timedelta(hours=16)
    empty = supplier_responsiveness(p.buyer_company, now=now)
    assert empty.response_rate is None
    assert empty.median_first_response is None

"""Suppliers whose products match a new buying request are told (in the app and by email)."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_trader
from tests.factories.search import index
from tests.factories.sourcing import make_request
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.services import email_preference_set
from tradepost.sourcing import tasks
from tradepost.sourcing.models import BuyingRequest, RequestStatus

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _everyone_at_once(settings):
    """These tests are about who is told and how; the first look (tests/sourcing/
    test_first_look.py) is turned off, so every matching supplier is told at once."""
    settings.TRADEPOST_FIRST_LOOK_MINUTES = 0


def _matched(user):
    return list(Notification.objects.filter(recipient=user, kind=NotificationKind.REQUEST_MATCHED))


@pytest.fixture
def world():
    """A Chinese pen maker, an unrelated supplier, and a buyer who also sells pens."""
    pen_owner, pen_company = make_trader(legal_name="宁波文具有限公司", english_name="Ningbo Pens")
    pen_owner.preferred_language = "zh-hans"
    pen_owner.save()
    pen_colleague = add_member(pen_company)
    pens = make_product(
        company=pen_company, slug="pens", title="圆珠笔", original_language="zh-hans"
    )
    other_owner, other_company = make_trader(legal_name="Towel Mill")
    towels = make_product(company=other_company, slug="towels", title="Cotton bath towels")
    buyer, buyer_company = make_trader(country="NL", legal_name="Pen Shop")
    own_pens = make_product(company=buyer_company, slug="own", title="Ballpoint pens, blue")
    index(pens, towels, own_pens)
    return {
        "pen_owner": pen_owner,
        "pen_colleague": pen_colleague,
        "other_owner": other_owner,
        "buyer": buyer,
    }


def test_request_notifies_matching_supplier_members_once(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        request = make_request(actor=world["buyer"], title="Ballpoint pens")

    for user in (world["pen_owner"], world["pen_colleague"]):
        [notification] = _matched(user)
        assert notification.params["subject"] == "Ballpoint pens"
        assert notification.link == f"/en/requests/{request.pk}/"
    assert _matched(world["buyer"]) == []
    assert _matched(world["other_owner"]) == []
    request.refresh_from_db()
    assert request.matched_notified_at is not None

    by_recipient = {tuple(message.to): message for message in mailoutbox}
    assert set(by_recipient) == {(world["pen_owner"].email,), (world["pen_colleague"].email,)}
    chinese = by_recipient[(world["pen_owner"].email,)]
    assert f"/zh-hans/requests/{request.pk}/" in chinese.body
    assert "Ballpoint pens" in chinese.body
    assert "Hello" not in chinese.body
    english = by_recipient[(world["pen_colleague"].email,)]
    assert f"/en/requests/{request.pk}/" in english.body
    assert english.subject.endswith("A new buying request matches your products")

    # Running the job again (a retry, a second worker) tells nobody twice.
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.request_notify_matched(request_id=request.pk) == 0
    assert len(_matched(world["pen_owner"])) == 1
    assert mailoutbox == []


def test_email_preference_off_still_gets_the_in_app_notification(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    email_preference_set(user=world["pen_colleague"], email_messages=False)
    with django_capture_on_commit_callbacks(execute=True):
        make_request(actor=world["buyer"], title="Ballpoint pens")

    assert len(_matched(world["pen_colleague"])) == 1
    assert [message.to for message in mailoutbox] == [[world["pen_owner"].email]]


def test_closed_or_unknown_requests_notify_nobody(world):
    request = make_request(actor=world["buyer"], title="Ballpoint pens")
    BuyingRequest.objects.filter(pk=request.pk).update(status=RequestStatus.CLOSED)
    assert tasks.request_notify_matched(request_id=request.pk) == 0
    assert tasks.request_notify_matched(request_id=10**9) == 0
    assert _matched(world["pen_owner"]) == []


def test_at_most_twenty_suppliers_are_told():
    buyer, _buyer_company = make_trader(country="NL")
    products = []
    for number in range(25):
        _owner, company = make_trader(legal_name=f"Pen maker {number}")
        products.append(make_product(company=company, slug="pens", title="Ballpoint pens"))
    index(*products)
    request = make_request(actor=buyer, title="Ballpoint pens")
    assert tasks.request_notify_matched(request_id=request.pk) == 20
    assert Notification.objects.filter(kind=NotificationKind.REQUEST_MATCHED).count() == 20

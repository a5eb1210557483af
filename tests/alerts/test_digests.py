"""Digests (docs/adr/0037): the owner of an alert gets one email in their language with the
new matches as cards and a one-click unsubscribe (RFC 8058), an in-app notification and a
webhook event; nothing is sent twice, a hidden listing is not sent, and a closed account
stops receiving."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.factories.catalog import make_product, named_category
from tests.factories.companies import make_company, make_trader
from tests.factories.search import index
from tradepost.alerts.digests import digest_make, digests_send_due
from tradepost.alerts.models import AlertDigest, AlertMatch, DigestStatus, SavedSearch
from tradepost.alerts.percolation import forget_percolator, percolate
from tradepost.alerts.services import saved_search_create
from tradepost.catalog.models import ProductStatus
from tradepost.notify.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_percolator():
    forget_percolator()
    yield
    forget_percolator()


@pytest.fixture
def matched(settings):
    category = named_category("Drinkware", "饮具", "飲具")
    supplier = make_company(legal_name="Ningbo Cups Co", country="CN", original_language="zh-hans")
    index(make_product(company=supplier, category=category, slug="old", title="旧款玻璃杯"))
    buyer, _company = make_trader(country="TW", slug="taipei-buyer")
    alert = saved_search_create(
        actor=buyer, kind="product", query="保溫杯", language="zh-hant", frequency="instant"
    )
    flask = make_product(
        company=supplier, category=category, slug="flask", title="304不锈钢真空保温杯 500ml"
    )
    index(flask)
    percolate()
    assert AlertMatch.objects.filter(alert=alert).count() == 1
    return alert, flask, buyer


def test_one_digest_in_the_readers_language_with_one_click_unsubscribe(matched):
    alert, _flask, buyer = matched
    mail.outbox.clear()

    assert digests_send_due() == 1

    [email] = mail.outbox
    assert email.to == [buyer.email]
    assert "保溫杯" in email.subject
    html = email.alternatives[0][0]
    assert "304不鏽鋼真空保溫杯" in html or "304不锈钢真空保温杯" in html
    assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert email.extra_headers["List-Unsubscribe"].startswith("<http")
    assert "/zh-hant/" in email.body
    assert Notification.objects.filter(
        recipient=buyer, kind=NotificationKind.ALERT_MATCHED
    ).exists()
    assert AlertDigest.objects.get(alert=alert).status == DigestStatus.SENT
    # Nothing new: nothing more, even once the hour has passed.
    assert digests_send_due(now=timezone.now() + timedelta(hours=2)) == 0
    assert len(mail.outbox) == 1


def test_two_workers_claim_one_digest(matched):
    alert, _flask, _buyer = matched
    first = digest_make(alert.pk, now=timezone.now())
    stale = SavedSearch.objects.get(pk=alert.pk)
    stale.claim -= 1  # a second worker that read the alert before the first claimed it
    second = digest_make(alert.pk, now=timezone.now())
    assert first is not None and second is None
    assert AlertDigest.objects.filter(alert=alert).count() == 1


def test_a_listing_hidden_before_the_digest_is_not_sent(matched):
    _alert, flask, _buyer = matched
    flask.status = ProductStatus.DRAFT
    flask.save()
    mail.outbox.clear()
    assert digests_send_due() == 0
    assert mail.outbox == []
    assert AlertMatch.objects.get(object_id=flask.pk).digest_id is None


def test_a_closed_account_stops_receiving_without_errors(matched):
    alert, _flask, buyer = matched
    buyer.is_active = False
    buyer.save()
    mail.outbox.clear()
    assert digests_send_due() == 0
    assert mail.outbox == []
    assert SavedSearch.objects.get(pk=alert.pk).paused
    assert digests_send_due() == 0


def test_as_it_happens_is_sent_right_after_matching_and_daily_waits_for_the_timer():
    from tradepost.alerts.digests import percolate_and_send

    category = named_category("Drinkware", "饮具", "飲具")
    supplier = make_company(legal_name="Ningbo Cups Co", country="CN", original_language="zh-hans")
    index(make_product(company=supplier, category=category, slug="old", title="旧款玻璃杯"))
    now_buyer, _c1 = make_trader(country="DE", slug="instant-buyer")
    daily_buyer, _c2 = make_trader(country="DE", slug="daily-buyer")
    saved_search_create(actor=now_buyer, kind="product", query="保温杯", frequency="instant")
    saved_search_create(actor=daily_buyer, kind="product", query="保温杯", frequency="daily")
    mail.outbox.clear()
    index(make_product(company=supplier, category=category, slug="f1", title="真空保温杯"))

    report = percolate_and_send()

    assert report.matches == 2
    assert [email.to for email in mail.outbox] == [[now_buyer.email]]
    # A second match within the hour is bundled into the next digest, not sent at once.
    index(make_product(company=supplier, category=category, slug="f2", title="保温杯 大容量"))
    percolate_and_send()
    assert len(mail.outbox) == 1

from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse

from tests.factories.accounts import PASSWORD, make_operator
from tests.factories.sourcing import make_request
from tradepost.audit.models import AuditEntry
from tradepost.money.models import ExchangeRate

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator_client(client):
    operator = make_operator()
    assert client.login(email=operator.email, password=PASSWORD)
    return client


def test_operator_updates_an_exchange_rate(operator_client):
    rate = ExchangeRate.objects.get(currency="EUR")
    url = reverse("admin:money_exchangerate_change", args=[rate.pk])
    response = operator_client.post(
        url, {"currency": "eur", "rate_to_usd": "1.1", "as_of": "2026-12-01"}
    )
    assert response.status_code == 302
    rate.refresh_from_db()
    assert rate.currency == "EUR"
    assert rate.as_of == date(2026, 12, 1)
    assert rate.rate_to_usd == Decimal("1.1")
    (entry,) = AuditEntry.objects.filter(action="exchange-rate.set")
    assert entry.changes["rate_to_usd"][1] == "1.1"


def test_unknown_currency_and_negative_rate_are_refused(operator_client):
    url = reverse("admin:money_exchangerate_add")
    response = operator_client.post(url, {"currency": "QQQ", "rate_to_usd": "-1", "as_of": ""})
    assert response.status_code == 200
    assert not ExchangeRate.objects.filter(currency="QQQ").exists()


def test_requests_are_read_only_in_the_admin(operator_client):
    request = make_request()
    listing = operator_client.get(reverse("admin:sourcing_buyingrequest_changelist"))
    assert listing.status_code == 200
    assert request.title in listing.text
    assert operator_client.get(reverse("admin:sourcing_buyingrequest_add")).status_code == 403

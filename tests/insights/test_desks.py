"""The supplier's desk (its own company's weeks only) and the operator's desk (operators only),
in the three languages."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tradepost.catalog.models import ProductStatus
from tradepost.insights.models import ProductViewDay, SearchWordDay
from tradepost.insights.selectors import supplier_desk
from tradepost.messaging.models import Conversation
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus

pytestmark = pytest.mark.django_db

#: A Wednesday noon: the current week of the desk starts on Monday 16 Nov 2026.
NOW = datetime(2026, 11, 18, 12, 0, tzinfo=UTC)
MONDAY = NOW.date() - timedelta(days=2)
LANGUAGES = {"en": "Supplier desk", "zh-hans": "供应商工作台", "zh-hant": "供應商工作台"}
OPERATOR_TITLES = {"en": "Operator desk", "zh-hans": "运营工作台", "zh-hant": "營運工作台"}


def _url(name: str, language: str = "en") -> str:
    with translation.override(language):
        return reverse(name)


def _at(day, hour: int = 9) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def supplier_weeks():
    """A supplier with views, inquiries, quotations and search words in its last weeks, and
    another company with numbers of its own."""
    parties = make_parties()
    company = parties.supplier_company
    two_weeks_ago = MONDAY - timedelta(weeks=2)
    for day, count in ((MONDAY, 3), (MONDAY + timedelta(days=1), 4), (two_weeks_ago, 5)):
        ProductViewDay.objects.create(
            product=parties.product, company=company, day=day, count=count
        )
    # Thirteen weeks ago: before the desk's first week.
    ProductViewDay.objects.create(
        product=parties.product, company=company, day=MONDAY - timedelta(weeks=13), count=99
    )
    # Two weeks ago: answered after 2 hours, and one answered after 30 hours.
    for delay in (2, 30):
        conversation = make_conversation(parties)
        Conversation.objects.filter(pk=conversation.pk).update(
            created_at=_at(two_weeks_ago),
            supplier_first_reply_at=_at(two_weeks_ago) + timedelta(hours=delay),
        )
    # This week, an hour ago, not answered yet: counted as an inquiry, not yet in the rate.
    fresh = make_conversation(parties)
    Conversation.objects.filter(pk=fresh.pk).update(
        created_at=NOW - timedelta(hours=1), supplier_first_reply_at=None
    )
    # A request of last week quoted on after 4 hours, awarded this week.
    request = make_request()
    quotation = make_quotation(request, actor=parties.supplier_owner)
    last_week = MONDAY - timedelta(weeks=1)
    BuyingRequest.objects.filter(pk=request.pk).update(
        created_at=_at(last_week), closed_at=_at(MONDAY, 10)
    )
    Quotation.objects.filter(pk=quotation.pk).update(
        created_at=_at(last_week, 13), status=QuotationStatus.AWARDED
    )
    for word, count in (("flask", 7), ("保温杯", 9), ("mug", 1)):
        SearchWordDay.objects.create(company=company, word=word, day=MONDAY, count=count)
    outsider, other = make_trader()
    other_product = make_product(company=other)
    ProductViewDay.objects.create(product=other_product, company=other, day=MONDAY, count=1000)
    SearchWordDay.objects.create(company=other, word="secret", day=MONDAY, count=50)
    return parties, outsider


def test_the_desk_counts_each_week_of_the_company(supplier_weeks, django_assert_max_num_queries):
    parties, _outsider = supplier_weeks
    with django_assert_max_num_queries(4):
        desk = supplier_desk(company=parties.supplier_company, now=NOW)
    assert len(desk.weeks) == 12
    assert desk.weeks[-1].start == MONDAY and desk.weeks[0].start == MONDAY - timedelta(weeks=11)
    this, last, before = desk.weeks[-1], desk.weeks[-2], desk.weeks[-3]
    assert [week.views for week in desk.weeks][-3:] == [5, 0, 7]
    assert desk.total_views == 12  # not the 99 of thirteen weeks ago, nor the other's 1000
    assert (before.inquiries, this.inquiries, desk.total_inquiries) == (2, 1, 3)
    # Two weeks ago: 2 asks, 1 answered within 24 hours, median of 2 h and 30 h.
    assert before.response_rate == 0.5 and before.median_response_hours == 16.0
    # This week's unanswered inquiry is an hour old: the supplier still has time.
    assert this.responsiveness.asks == 0 and this.response_rate is None
    # The quotation: sent last week (4 hours after the request), won this week.
    assert (last.quotations_sent, last.quotations_won, this.quotations_won) == (1, 0, 1)
    assert last.response_rate == 1.0 and last.median_response_hours == 4.0
    assert [(w.word, w.impressions) for w in desk.top_words] == [
        ("保温杯", 9),
        ("flask", 7),
        ("mug", 1),
    ]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_supplier_desk_renders_in_each_language(supplier_weeks, language):
    parties, _outsider = supplier_weeks
    response = _client(parties.supplier_member).get(_url("insights:supplier_desk", language))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert f"<h1>{LANGUAGES[language]}</h1>" in html
    # The charts: drawn by the page's own scripts from a JSON block; a table holds the numbers.
    assert '<script id="desk-data" type="application/json">' in html
    assert "tradepost/vendor/chart.umd.js" in html and "tradepost/desk.js" in html
    assert html.count("<canvas") == 4 and "data-desk-charts hidden" in html
    assert re.search(r"<table class=\"data desk-table\">", html)
    assert "<script>" not in html  # no inline script (the CSP forbids it)
    data = json.loads(
        re.search(r'id="desk-data" type="application/json">(.*?)</script>', html, re.S)[1]
    )
    assert len(data["weeks"]) == 12 and len(data["views"]) == 12
    assert data["locale"] == {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}[language]
    # Words are kept simplified and shown in the reader's script.
    word = "保溫杯" if language == "zh-hant" else "保温杯"
    assert word in data["words"] and "secret" not in data["words"]
    assert f'<th scope="row">{word}</th>' in html
    if language != "en":
        assert "Product page views" not in html and "Week by week" not in html


def test_another_companys_numbers_are_never_shown(supplier_weeks):
    parties, outsider = supplier_weeks
    mine = _client(parties.supplier_owner).get(_url("insights:supplier_desk")).context
    theirs = _client(outsider).get(_url("insights:supplier_desk")).context
    assert mine["desk"].company == parties.supplier_company
    assert "secret" not in {word.word for word in mine["desk"].top_words}
    assert theirs["desk"].company != parties.supplier_company
    assert {word.word for word in theirs["desk"].top_words} <= {"secret"}
    assert not {"flask", "保温杯"} & {word.word for word in theirs["desk"].top_words}
    # No parameter picks another company.
    other = _client(outsider).get(
        _url("insights:supplier_desk"), {"company": parties.supplier_company.pk}
    )
    assert other.context["desk"].company != parties.supplier_company


def test_the_desk_needs_a_company_and_a_login():
    anonymous = Client().get(_url("insights:supplier_desk"))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    loner = _client(make_user()).get(_url("insights:supplier_desk"))
    assert loner.status_code == 302 and loner["Location"] == _url("companies:create")
    operator = _client(make_operator()).get(_url("insights:supplier_desk"))
    assert operator["Location"] == _url("insights:operator_desk")


def test_the_dashboard_links_to_the_supplier_desk():
    owner, _company = make_trader()
    html = _client(owner).get(_url("accounts:dashboard")).content.decode()
    assert f'href="{_url("insights:supplier_desk")}"' in html


@pytest.mark.parametrize("language", sorted(OPERATOR_TITLES))
def test_the_operator_desk_renders_in_each_language(language, supplier_weeks):
    make_product(status=ProductStatus.HIDDEN)
    response = _client(make_operator()).get(_url("insights:operator_desk", language))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert f"<h1>{OPERATOR_TITLES[language]}</h1>" in html
    numbers = response.context["numbers"]
    assert numbers.hidden_products == 1
    assert numbers.unverified_companies >= 2  # the supplier's and the other's listings
    assert numbers.new_companies >= 3 and numbers.new_products >= 3
    assert response.context["search"]["status"] in ("ok", "behind")
    # Links on into the admin, with the queues' filters.
    assert 'href="/admin/catalog/product/?status__exact=hidden"' in html
    assert 'href="/admin/companies/company/?is_verified__exact=0"' in html
    assert 'href="/admin/"' in html
    if language != "en":
        assert "Queues" not in html and "This server" not in html


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider", "loner"])
def test_only_operators_see_the_operator_desk(cast, who):
    response = _client(getattr(cast, who)).get(_url("insights:operator_desk"))
    assert response.status_code == 404
    anonymous = Client().get(_url("insights:operator_desk"))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]

"""The trading pages finished (#13): numbers, money and dates formatted for the viewer's
language in one style, the comparison's volume prices and supplier links, awarding in two
steps, the search filters behind a disclosure, the supplier's key numbers and the operator's
way to the operator tools on the dashboard."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.utils import timezone

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tests.pages import log_in as _login
from tests.pages import page_url as _url
from tradepost.catalog.models import ProductStatus
from tradepost.sourcing.models import QuotationStatus, QuoteUsage, RequestStatus

pytestmark = pytest.mark.django_db

_SOON = timezone.now() + timedelta(days=60)
#: Midnight UTC of a day two months ahead: Django's own format said "…, midnight" beside it.
DEADLINE = datetime(_SOON.year, _SOON.month, _SOON.day, tzinfo=UTC)
#: The one date style of the pages: "17 Dec 2026" in English (day first, month named, never
#: the US "12/17/2026"), "2026年12月17日" in Chinese.
DAY_EN = f"{DEADLINE.day} {DEADLINE:%b} {DEADLINE.year}"
DAY_ZH = f"{DEADLINE.year}年{DEADLINE.month}月{DEADLINE.day}日"
US_DATE = f"{DEADLINE.month}/{DEADLINE.day}/{DEADLINE.year}"


def _request_with_two_quotations():
    buyer, _buyer_company = make_trader(country="NL")
    buying_request = make_request(
        actor=buyer,
        quantity="10000",
        target_unit_price="2.4",
        target_currency="USD",
        deadline=DEADLINE,
    )
    supplier, supplier_company = make_trader(
        legal_name="宁波明达保温制品有限公司",
        english_name="Ningbo Mingda Thermos Co., Ltd.",
        original_language="zh-hans",
    )
    quotation = make_quotation(
        buying_request,
        actor=supplier,
        unit_price="21",
        currency="CNY",
        moq="2000",
        price_tiers=[{"min_quantity": "5000", "unit_price": "3.9"}],
    )
    make_quotation(buying_request, actor=make_trader()[0])
    return buyer, buying_request, supplier_company, quotation


# --- the request page and the board: one number style, one date style ----------------------


@pytest.mark.parametrize(
    ("language", "quantity", "deadline"),
    [
        ("en", "10,000 pieces", DAY_EN),
        ("zh-hans", "10,000 件", DAY_ZH),
        ("zh-hant", "10,000 件", DAY_ZH),
    ],
)
def test_request_detail_formats_quantities_money_and_dates_in_one_style(
    client, language, quantity, deadline
):
    _buyer, buying_request, _company, _quotation = _request_with_two_quotations()
    html = client.get(_url("sourcing:request_detail", language, pk=buying_request.pk)).text
    facts = html.split('<dl class="terms facts">', 1)[1].split("</dl>", 1)[0]
    assert quantity in facts
    assert "US$2.40" in facts
    assert deadline in facts
    # Not Django's own formats beside Babel's: no "midnight", no US month-first dates.
    assert "midnight" not in html and US_DATE not in html and f"{DEADLINE:%b}. " not in html

    board = client.get(_url("sourcing:board", language)).text
    assert quantity in board and deadline in board
    assert US_DATE not in board


def test_board_filters_are_one_styled_block_and_the_list_has_no_bullets(client):
    make_request()
    html = client.get(_url("sourcing:board")).text
    assert 'class="filters inline"' not in html
    form = html.split('<form method="get" class="board-filters">', 1)[1].split("</form>", 1)[0]
    assert '<fieldset class="field quantity-range">' in form
    assert 'name="quantity_min"' in form and 'name="quantity_max"' in form
    assert '<ul class="request-list">' in html
    css = Path(finders.find("tradepost/site.css")).read_text(encoding="utf-8")
    assert re.search(r"\.request-list \{[^}]*list-style: none", css)


# --- the comparison ------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_compare_formats_volume_prices_and_links_suppliers_in_the_viewers_language(
    client, language
):
    buyer, buying_request, company, _quotation = _request_with_two_quotations()
    _login(client, buyer)
    html = client.get(_url("sourcing:compare", language, pk=buying_request.pk)).text
    assert "5000.000" not in html and "3.9000" not in html and "21.0000" not in html
    assert "CN¥21.00" in html
    unit = "pieces" if language == "en" else "件"
    assert f"5,000 {unit}" in html and "CN¥3.90" in html
    name = {
        "en": "Ningbo Mingda Thermos Co., Ltd.",
        "zh-hans": "宁波明达保温制品有限公司",
        "zh-hant": "寧波明達保溫製品有限公司",
    }[language]
    company_url = _url("catalog:company_detail", language, slug=company.slug)
    assert f'<a href="{company_url}">{name}</a>' in html
    assert 'class="actions"' in html  # the column the stylesheet keeps wide enough


def test_awarding_takes_a_confirmation_step(client):
    buyer, buying_request, _company, quotation = _request_with_two_quotations()
    _login(client, buyer)
    compare = client.get(_url("sourcing:compare", pk=buying_request.pk)).text
    award_url = _url("sourcing:award", pk=quotation.pk)
    # No one-click award: the compare page only links to the confirmation page.
    assert f'action="{award_url}"' not in compare
    assert f'href="{award_url}"' in compare

    page = client.get(award_url)
    assert page.status_code == 200
    assert "Award the request to Ningbo Mingda Thermos Co., Ltd.?" in page.text
    assert 'name="confirm" value="yes"' in page.text
    buying_request.refresh_from_db()
    assert buying_request.status == RequestStatus.OPEN

    # A post without the confirmation (an old page's form) shows the page again.
    response = client.post(award_url)
    assert response.status_code == 302 and response["Location"] == award_url
    buying_request.refresh_from_db()
    assert buying_request.status == RequestStatus.OPEN

    response = client.post(award_url, {"confirm": "yes"})
    assert response.status_code == 302
    quotation.refresh_from_db()
    assert quotation.status == QuotationStatus.AWARDED


def test_another_company_cannot_see_the_confirmation_page(client):
    _buyer, _request, _company, quotation = _request_with_two_quotations()
    _login(client, make_trader()[0])
    award_url = _url("sourcing:award", pk=quotation.pk)
    assert client.get(award_url).status_code == 404
    assert client.post(award_url, {"confirm": "yes"}).status_code == 404
    quotation.refresh_from_db()
    assert quotation.status == QuotationStatus.SUBMITTED


# --- search: the filters behind a disclosure -------------------------------------------------


def test_search_filters_sit_behind_a_disclosure_that_counts_the_selected_ones(client):
    html = client.get(
        "/en/search/", {"q": "flask", "country": "CN,VN", "price_min": "1", "price_max": "5"}
    ).text
    aside = html.split('<aside class="sidebar search-facets"', 1)[1].split("</aside>", 1)[0]
    assert '<details class="filters-disclosure" data-open-wide>' in aside
    # Two countries and one price range.
    assert "<summary>Filters (3 selected)</summary>" in aside
    assert 'class="facet facet-price-range"' in aside  # the filters are inside it
    plain = client.get("/en/search/", {"q": "flask"}).text
    assert "<summary>Filters</summary>" in plain
    zh = client.get("/zh-hans/search/", {"q": "flask", "country": "CN"}).text
    assert "<summary>筛选条件（已选 1 项）</summary>" in zh


# --- the dashboard ---------------------------------------------------------------------------


def test_supplier_dashboard_shows_its_key_numbers(client, django_assert_max_num_queries):
    parties = make_parties()  # with one published product
    company = parties.supplier_company
    make_product(company=company, title="Travel mug")
    make_product(company=company, title="Draft mug", status=ProductStatus.DRAFT)
    make_conversation(parties)  # a buyer's inquiry, not answered yet
    QuoteUsage.objects.create(company=company, month=timezone.localdate().replace(day=1), count=3)
    _login(client, parties.supplier_owner)
    with django_assert_max_num_queries(20):
        html = client.get(_url("accounts:dashboard")).text
    stats = html.split('<ul class="stat-list">', 1)[1].split("</ul>", 1)[0]
    products = stats.split('class="stat stat-products"', 1)[1].split("</li>", 1)[0]
    assert '<span class="stat-value">2</span>' in products and "1 draft" in products
    inquiries = stats.split('class="stat stat-inquiries"', 1)[1].split("</li>", 1)[0]
    assert '<span class="stat-value">1</span>' in inquiries and "1 unread message" in inquiries
    quotations = stats.split('class="stat stat-quotations"', 1)[1].split("</li>", 1)[0]
    assert "3 of 20" in quotations and "17 left this month" in quotations
    response = stats.split('class="stat stat-response"', 1)[1].split("</li>", 1)[0]
    assert '<span class="stat-value">—</span>' in response  # nobody waited a day yet

    zh = client.get(_url("accounts:dashboard", "zh-hant")).text
    assert "已發佈的產品" in zh and "本月還可報價 17 次" in zh


def test_an_operator_without_a_company_is_shown_the_operator_tools(client):
    operator = make_operator()
    _login(client, operator)
    html = client.get(_url("accounts:dashboard")).text
    assert "Create your company" not in html
    # The operator's desk (in the site's style), which links on to the admin.
    assert 'href="/en/dashboard/operator/"' in html and "Open the operator tools" in html
    # The header's account menu leads there from every page.
    board = client.get(_url("sourcing:board")).text
    assert '<a class="operator-link" href="/en/dashboard/operator/">' in board


def test_a_member_without_a_company_still_is_asked_to_create_one(client):
    from tests.factories.accounts import make_user

    user = make_user()
    _login(client, user)
    html = client.get(_url("accounts:dashboard")).text
    assert "Create your company" in html
    assert 'href="/admin/"' not in html
    assert "/dashboard/operator/" not in html
    assert 'class="stat-list"' not in html

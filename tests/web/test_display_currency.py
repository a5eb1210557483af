"""One display currency chosen by the viewer, with the listed price beside it (issue #13):
the header's form and its cookie, a signed-in person's setting, the default of each page
language, converted prices on cards, product and request pages, the comparison's currency,
the page cache, and bad input refused without a 500."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from html import unescape

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product, make_tree
from tests.factories.companies import make_company
from tests.factories.search import index
from tests.factories.sourcing import make_quoted_request, make_request
from tradepost.money.display import AS_LISTED, converted_price
from tradepost.money.models import ExchangeRate
from tradepost.money.rates import forget_rates
from tradepost.money.services import exchange_rate_set
from tradepost.web.display_currency import COOKIE_NAME

pytestmark = pytest.mark.django_db

AS_OF = date(2026, 11, 30)
AS_OF_EN = "30 Nov 2026"
SET_URL = "/en/display-currency/"

#: US dollars per unit: round rates, so the expected figures can be worked by hand.
RATES = {
    "USD": Decimal("1"),
    "EUR": Decimal("1.25"),  # US$2.50 = €2.00, US$3.80 = €3.04
    "JPY": Decimal("0.0068"),  # US$2.50 = ¥367.6 -> 368, US$3.80 = ¥558.8 -> 559
    "CNY": Decimal("0.14"),
    "TWD": Decimal("0.032"),
}


@pytest.fixture(autouse=True)
def rates():
    """The table holds exactly RATES, all of AS_OF."""
    ExchangeRate.objects.exclude(currency__in=RATES).delete()
    for code, rate in RATES.items():
        ExchangeRate.objects.update_or_create(
            currency=code, defaults={"rate_to_usd": rate, "as_of": AS_OF}
        )
    forget_rates()
    yield
    forget_rates()


def product_url(product, language="en"):
    return f"/{language}/products/{product.pk}-{product.slug}/"


def visitor(currency: str | None = None) -> Client:
    client = Client()
    if currency is not None:
        client.cookies[COOKIE_NAME] = currency
    return client


def text_of(html: str) -> str:
    """What a reader sees, spaces made plain."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).replace("\u00a0", " ")


def selected_currency(html: str) -> str:
    form = html.split('<form class="currency-switch"', 1)[1].split("</form>", 1)[0]
    (value,) = re.findall(r'<option value="([^"]+)" selected>', form)
    return value


def messages_of(response) -> list[str]:
    return [str(message) for message in response.wsgi_request._messages]


# --- choosing -------------------------------------------------------------------------------


def test_choosing_a_currency_keeps_it_in_a_cookie_and_goes_back():
    client = visitor()
    response = client.post(SET_URL, {"currency": "EUR", "next": "/en/search/?q=flask"})
    assert response.status_code == 302
    assert response["Location"] == "/en/search/?q=flask"
    cookie = response.cookies[COOKIE_NAME]
    assert cookie.value == "EUR"
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and int(cookie["max-age"]) > 86400
    assert selected_currency(client.get("/en/").content.decode()) == "EUR"


def test_the_header_form_needs_no_csrf_token_and_sets_no_cookie_on_the_page():
    """Like the language form: a token would make every public page set a cookie."""
    response = Client(enforce_csrf_checks=True).post(SET_URL, {"currency": "JPY", "next": "/en/"})
    assert response.status_code == 302 and response.cookies[COOKIE_NAME].value == "JPY"
    page = Client().get("/en/")
    assert not page.cookies
    html = page.content.decode()
    form = html.split('<form class="currency-switch"', 1)[1].split("</form>", 1)[0]
    assert 'action="/en/display-currency/"' in form
    assert "csrfmiddlewaretoken" not in form
    assert 'name="next" type="hidden" value="/en/"' in form
    assert "data-autosubmit" in form and "<noscript>" in form  # works without a script
    options = re.findall(r'<option value="([^"]+)"', form)
    assert options == [AS_LISTED, *sorted(RATES)]


@pytest.mark.parametrize(
    "unsafe", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "/en/\x00"]
)
def test_a_return_address_off_the_site_is_not_followed(unsafe):
    response = visitor().post(SET_URL, {"currency": "EUR", "next": unsafe})
    assert response.status_code == 302
    assert response["Location"] == "/en/"
    assert "evil" not in response["Location"]


def test_without_a_return_address_the_referring_page_is_used_when_on_this_site():
    response = visitor().post(
        SET_URL, {"currency": "EUR"}, HTTP_REFERER="http://testserver/en/companies/"
    )
    assert response["Location"] == "http://testserver/en/companies/"
    response = visitor().post(SET_URL, {"currency": "EUR"}, HTTP_REFERER="https://evil.example/")
    assert response["Location"] == "/en/"


@pytest.mark.parametrize(
    "value",
    ["XYZ", "CHF", "eur", "E" * 5000, "EU\x00R", "", "USD\u0301", "<script>"],
    ids=["unknown", "no-rate", "lower-case", "overlong", "nul", "empty", "combining", "markup"],
)
def test_a_currency_the_list_does_not_hold_is_refused_saying_so(value):
    client = visitor("JPY")
    response = client.post(SET_URL, {"currency": value, "next": "/en/requests/"})
    assert response.status_code == 302
    assert response["Location"] == "/en/requests/"
    assert COOKIE_NAME not in response.cookies  # the choice is left as it was
    shown = messages_of(response)
    assert len(shown) == 1
    if value:
        assert shown == ["Prices cannot be shown in this currency. Choose one from the list."]
    page = client.get("/en/requests/").content.decode()
    assert selected_currency(page) == "JPY"
    assert "Prices cannot be shown in this currency" in page or not value


def test_the_refusal_is_in_the_visitors_language():
    response = visitor().post("/zh-hans/display-currency/", {"currency": "XYZ"})
    assert response.status_code == 302
    (message,) = messages_of(response)
    assert message == "无法以此币种显示价格，请从列表中选择。"


def test_an_overlong_or_nul_return_address_is_refused_and_nothing_kept():
    for bad in ("/en/" + "a" * 3000, "/en/x\x00y"):
        response = visitor().post(SET_URL, {"currency": "EUR", "next": bad})
        assert response.status_code == 302 and response["Location"] == "/en/"
        assert COOKIE_NAME not in response.cookies
        assert messages_of(response)


def test_only_a_post_changes_the_choice():
    response = visitor().get(SET_URL, {"currency": "EUR"})
    assert response.status_code == 405
    assert COOKIE_NAME not in response.cookies


@pytest.mark.parametrize("cookie", ["XYZ", "E" * 4000, "EUR;", '"<b>"', "listedX"])
def test_a_cookie_holding_anything_else_means_the_default(cookie):
    product = make_product(currency="EUR", price_min=Decimal("2"), price_max=Decimal("3"))
    response = visitor(cookie).get(product_url(product))
    assert response.status_code == 200
    html = response.content.decode()
    assert selected_currency(html) == "USD"
    assert "≈ US$2.50–3.75 / piece" in text_of(html)


# --- the default of each page language --------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "expected"), [("en", "USD"), ("zh-hans", "CNY"), ("zh-hant", "TWD")]
)
def test_a_visitor_starts_with_the_currency_of_the_page_language(language, expected):
    html = visitor().get(f"/{language}/").content.decode()
    assert selected_currency(html) == expected


def test_without_a_rate_for_the_languages_currency_the_dollar_is_the_default():
    ExchangeRate.objects.filter(currency="TWD").delete()
    forget_rates()
    assert selected_currency(visitor().get("/zh-hant/").content.decode()) == "USD"
    ExchangeRate.objects.filter(currency="USD").delete()
    forget_rates()
    assert selected_currency(visitor().get("/en/").content.decode()) == AS_LISTED


def test_a_chosen_currency_beats_the_language_default():
    assert selected_currency(visitor("EUR").get("/zh-hans/").content.decode()) == "EUR"
    assert selected_currency(visitor("listed").get("/zh-hans/").content.decode()) == AS_LISTED


# --- prices shown -------------------------------------------------------------------------


def test_the_product_page_shows_the_converted_price_first_and_the_listed_one_beside_it():
    product = make_product()  # US$2.50–3.80 / piece
    html = visitor("EUR").get(product_url(product)).content.decode()
    summary = html.split('<p class="price big">', 1)[1].split("</p>", 1)[0]
    note = f"Converted with the exchange rates of {AS_OF_EN}; amounts are approximate."
    assert f'title="{note}"' in summary
    text = text_of(summary)
    assert text.index("≈ €2.00–3.04 / piece") < text.index("US$2.50–3.80 / piece")
    assert note in text  # readable on a phone too
    terms = html.split('<table class="data terms-table">', 1)[1].split("</table>", 1)[0]
    assert "≈ €2.00–3.04 / piece US$2.50–3.80 / piece (USD)" in text_of(terms)
    # The structured data keeps the listing's own currency.
    assert '"priceCurrency": "USD"' in html and '"lowPrice": "2.50"' in html


@pytest.mark.parametrize("where", ["home", "category", "company"])
def test_cards_show_the_converted_price_and_the_listed_one(where):
    _root, _branch, leaf, _other = make_tree()
    company = make_company()
    make_product(company=company, category=leaf, price_min=Decimal("10"), price_max=None)
    url = {"home": "/en/", "category": f"/en/categories/{leaf.slug}/"}.get(
        where, f"/en/companies/{company.slug}/"
    )
    html = visitor("EUR").get(url).content.decode()
    card = html.split('<article class="product-card">', 1)[1].split("</article>", 1)[0]
    assert "From ≈ €8.00 / piece From US$10.00 / piece" in text_of(card)
    assert f"exchange rates of {AS_OF_EN}" in card


def test_search_results_show_the_converted_price_and_the_listed_one():
    product = make_product(
        title="Bamboo cutting board",
        currency="CNY",
        price_min=Decimal("21"),
        price_max=Decimal("35.5"),
    )
    index(product)
    html = visitor("EUR").get("/en/search/", {"q": "bamboo"}).content.decode()
    hit = html.split('<dd class="price">', 1)[1].split("</dd>", 1)[0]
    # 21 CNY x 0.14 / 1.25 = €2.352 -> €2.35; 35.5 x 0.112 = €3.976 -> €3.98
    assert text_of(hit).strip() == "≈ €2.35–3.98 / piece CN¥21.00–35.50 / piece"


def test_prices_in_yen_have_no_decimals():
    product = make_product()
    text = text_of(visitor("JPY").get(product_url(product)).content.decode())
    assert "≈ JP¥368–559 / piece" in text
    assert "JP¥368.0" not in text and "JP¥367" not in text


def test_the_same_currency_shows_one_price():
    product = make_product()  # USD, and an English reader starts in USD
    html = visitor().get(product_url(product)).content.decode()
    assert "price-converted" not in html and "≈" not in text_of(html)
    assert text_of(html).count("US$2.50–3.80 / piece") == 2  # the summary and the terms


def test_as_listed_converts_nothing():
    product = make_product(currency="EUR")
    html = visitor("listed").get(product_url(product)).content.decode()
    assert "price-converted" not in html
    assert "€2.50–3.80 / piece" in text_of(html)


def test_a_missing_rate_shows_the_listed_price_only():
    product = make_product(currency="MNT", price_min=Decimal("9000"), price_max=Decimal("9500"))
    html = visitor("EUR").get(product_url(product)).content.decode()
    assert "price-converted" not in html and "≈" not in text_of(html)
    assert "MNT 9,000.00–9,500.00 / piece" in text_of(html)


def test_a_price_on_request_is_not_converted():
    product = make_product(price_min=None, price_max=None)
    html = visitor("EUR").get(product_url(product)).content.decode()
    assert "price-converted" not in html and "Price on request" in html


def test_chinese_pages_show_yuan_first_with_the_listed_dollars_beside_them():
    product = make_product()
    text = text_of(visitor().get(product_url(product, "zh-hans")).content.decode())
    # US$2.50 / 0.14 = CN¥17.857 -> 17.86; US$3.80 / 0.14 = CN¥27.142 -> 27.14
    assert "≈ CN¥17.86–27.14 / 件" in text
    assert "US$2.50–3.80 / 件" in text
    assert "2026年11月30日" in text


def test_a_buying_requests_target_price_is_converted_too():
    buying_request = make_request(target_unit_price="2.40", target_currency="USD")
    html = visitor("EUR").get(f"/en/requests/{buying_request.pk}/").content.decode()
    facts = html.split('<dl class="terms facts">', 1)[1].split("</dl>", 1)[0]
    assert "≈ €1.92 US$2.40" in text_of(facts)
    same = visitor().get(f"/en/requests/{buying_request.pk}/").content.decode()
    assert "price-converted" not in same


def test_the_table_is_read_at_most_once_for_a_page_of_cards():
    company = make_company()
    for n in range(8):
        make_product(company=company, currency="CNY" if n % 2 else "EUR", slug=f"p{n}")
    client = visitor("JPY")
    with CaptureQueriesContext(connection) as first:
        assert client.get(f"/en/companies/{company.slug}/").status_code == 200
    reads = [q for q in first.captured_queries if "sourcing_exchangerate" in q["sql"]]
    assert len(reads) == 1
    with CaptureQueriesContext(connection) as again:
        html = client.get(f"/en/companies/{company.slug}/").content.decode()
    assert not [q for q in again.captured_queries if "sourcing_exchangerate" in q["sql"]]
    assert html.count('class="price-converted"') == 8


def test_a_rate_set_by_the_operator_is_used_at_once(django_capture_on_commit_callbacks):
    product = make_product()
    assert "≈ €2.00–3.04" in text_of(visitor("EUR").get(product_url(product)).content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        exchange_rate_set(
            actor=make_operator(), currency="EUR", rate_to_usd="1", as_of=date(2026, 12, 1)
        )
    text = text_of(visitor("EUR").get(product_url(product)).content.decode())
    assert "≈ €2.50–3.80" in text and "1 Dec 2026" in text


def test_conversion_rounds_to_the_currencys_own_decimals():
    euro = converted_price(Decimal("3.333"), None, currency="USD", display="EUR")
    assert euro is not None and euro.low == Decimal("2.67") and euro.high is None
    yen = converted_price(Decimal("2.5"), Decimal("3.8"), currency="usd", display="JPY")
    assert yen is not None and (yen.low, yen.high) == (Decimal("368"), Decimal("559"))
    assert yen.as_of == AS_OF
    assert converted_price(Decimal("1"), None, currency="USD", display="USD") is None
    assert converted_price(Decimal("1"), None, currency="USD", display=AS_LISTED) is None
    assert converted_price(Decimal("1"), None, currency="MNT", display="EUR") is None
    assert converted_price(None, None, currency="EUR", display="USD") is None


# --- signed in ----------------------------------------------------------------------------


def test_a_signed_in_persons_choice_is_saved_and_follows_them():
    user = make_user()
    client = Client()
    client.force_login(user)
    response = client.post(SET_URL, {"currency": "JPY", "next": "/en/"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_currency == "JPY"
    # Another browser, signed in: the saved choice, whatever its cookie says.
    other = visitor("EUR")
    other.force_login(user)
    assert selected_currency(other.get("/en/").content.decode()) == "JPY"


def test_the_settings_page_chooses_the_currency_too():
    user = make_user()
    client = Client()
    client.force_login(user)
    page = client.get("/en/accounts/settings/").content.decode()
    assert 'name="display_currency"' in page
    assert '<option value="EUR">EUR — Euro</option>' in page
    response = client.post(
        "/en/accounts/settings/",
        {"full_name": "Anna", "preferred_language": "en", "display_currency": "EUR"},
    )
    assert response.status_code == 302
    assert response.cookies[COOKIE_NAME].value == "EUR"
    user.refresh_from_db()
    assert user.display_currency == "EUR"
    assert "≈ €2.00–3.04" in text_of(client.get(product_url(make_product())).content.decode())
    # Back to the language's default: the cookie goes too.
    response = client.post(
        "/en/accounts/settings/",
        {"full_name": "Anna", "preferred_language": "en", "display_currency": ""},
    )
    assert response.status_code == 302
    assert response.cookies[COOKIE_NAME].value == ""
    user.refresh_from_db()
    assert user.display_currency == ""


@pytest.mark.parametrize("value", ["XYZ", "E" * 300, "EU\x00R"])
def test_the_settings_page_refuses_an_unknown_currency(value):
    user = make_user(full_name="Before")
    client = Client()
    client.force_login(user)
    response = client.post(
        "/en/accounts/settings/",
        {"full_name": "After", "preferred_language": "en", "display_currency": value},
    )
    assert response.status_code == 200
    assert "Prices cannot be shown in this currency" in response.content.decode()
    user.refresh_from_db()
    assert (user.full_name, user.display_currency) == ("Before", "")


# --- the comparison -----------------------------------------------------------------------


def test_the_comparison_starts_in_the_viewers_display_currency():
    buyer, buying_request, _quotes = make_quoted_request(
        {"unit_price": "21", "currency": "CNY"}, {"unit_price": "3.10", "currency": "USD"}
    )
    client = visitor("EUR")
    client.force_login(buyer)
    url = f"/en/requests/{buying_request.pk}/compare/"
    html = client.get(url).content.decode()
    assert "Unit price (EUR)" in html
    assert "€2.35" in html  # 21 CNY x 0.14 / 1.25
    assert '<option value="EUR" selected>' in html
    # The address still wins.
    assert "Unit price (JPY)" in client.get(url, {"currency": "JPY"}).content.decode()
    # "As listed" has no single currency to compare in: US dollars, as before.
    buyer.display_currency = AS_LISTED
    buyer.save(update_fields=["display_currency"])
    assert "Unit price (USD)" in client.get(url).content.decode()


# --- the page cache -----------------------------------------------------------------------


def test_the_page_cache_keeps_one_copy_per_display_currency(settings):
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 30
    cache.clear()
    try:
        product = make_product()
        url = product_url(product)
        euro = visitor("EUR").get(url)
        assert euro["X-Cache"] == "miss" and "≈ €2.00–3.04" in text_of(euro.content.decode())
        dollars = visitor().get(url)
        assert dollars["X-Cache"] == "miss" and "≈" not in text_of(dollars.content.decode())
        again = visitor("EUR").get(url)
        assert again["X-Cache"] == "hit" and again.content == euro.content
    finally:
        cache.clear()

"""Pages in the viewer's language (issue #13, "mixed languages"): units, trade-term labels,
HS codes and ports; text never translated marked with its language; the translation fallback
order; Simplified and Traditional converted for display."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import PASSWORD
from tests.factories.catalog import make_category, make_product, make_tree, translate
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.catalog.hydration import load_products, product_card
from tradepost.catalog.models import HSCode, Unit
from tradepost.core.chinese_scripts import convert_script

pytestmark = pytest.mark.django_db

# Every English unit word the site knows (singular and plural), as whole words.
ENGLISH_UNIT_WORDS = re.compile(
    r"\b(pieces?|sets?|pairs?|box(?:es)?|cartons?|dozens?|rolls?|bags?|kilograms?|grams?|"
    r"tonnes?|metres?|litres?|barrels?|containers?|units?)\b",
    re.IGNORECASE,
)


def product_url(product, language):
    return f"/{language}/products/{product.pk}-{product.slug or 'item'}/"


def visible_text(html: str) -> str:
    """What a reader sees: no scripts, styles or tags (attributes hold machine codes)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


# --- units --------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_units_on_chinese_pages_are_chinese(client, language):
    _root, _branch, leaf, _other = make_tree()
    products = [
        make_product(category=leaf, moq=1 if n % 2 else 500, moq_unit=unit, slug=f"p{n}")
        for n, unit in enumerate(Unit.values)
    ]
    for product in products:
        text = visible_text(client.get(product_url(product, language)).content.decode())
        assert not ENGLISH_UNIT_WORDS.findall(text), (product.moq_unit, text)
    cards = visible_text(client.get(f"/{language}/categories/{leaf.slug}/").content.decode())
    assert not ENGLISH_UNIT_WORDS.findall(cards)
    assert "US$2.50–3.80 / 件" in cards


def test_units_in_english_are_singular_or_plural(client):
    one = make_product(moq=1, moq_unit="sets", slug="one")
    many = make_product(moq=2000, moq_unit="sets", slug="many")
    assert "1 set" in client.get(product_url(one, "en")).content.decode()
    html = client.get(product_url(many, "en")).content.decode()
    assert "2,000 sets" in html and "/ set" in html


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_units_on_chinese_request_and_compare_pages_are_chinese(client, language):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer, quantity="1", unit="sets")
    make_quotation(request, moq="1")
    with translation.override(language):
        detail = reverse("sourcing:request_detail", kwargs={"pk": request.pk})
        board = reverse("sourcing:board")
        compare = reverse("sourcing:compare", kwargs={"pk": request.pk})
    for url in (detail, board):
        text = visible_text(client.get(url).content.decode())
        assert "1 套" in text and not ENGLISH_UNIT_WORDS.findall(text), url
    assert client.login(email=buyer.email, password=PASSWORD)
    text = visible_text(client.get(compare).content.decode())
    assert "1 套" in text and not ENGLISH_UNIT_WORDS.findall(text)


# --- Incoterms, HS codes, ports -----------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "label", "heading", "port"),
    [
        ("zh-hans", "贸易术语", "保温瓶", "宁波"),
        ("zh-hant", "貿易條件", "保溫瓶", "寧波"),
    ],
)
def test_trade_terms_hs_heading_and_port_in_chinese(client, language, label, heading, port):
    HSCode.objects.update_or_create(
        code="961700",
        defaults={"description": "Vacuum flasks and other vacuum vessels", "level": 6},
    )
    category = make_category(
        name_en="Vacuum flasks", name_zh_hans="保温瓶", name_zh_hant="保溫瓶", hs_codes=["9617"]
    )
    make_category(name_en="Household", name_zh_hans="家居", name_zh_hant="家居", hs_codes=["96"])
    product = make_product(
        category=category, incoterms=["FOB"], hs_code="961700", port_of_loading="Ningbo"
    )
    html = client.get(product_url(product, language)).content.decode()
    assert f">{label}</th>" in html and "Incoterms" not in visible_text(html)
    assert f"<code>961700</code> {heading} " in html
    assert '<span class="muted hs-official" lang="en">(Vacuum flasks and other' in html
    assert f'<td lang="{language.replace("zh-h", "zh-H")}">{port}</td>' in html
    english = client.get(product_url(product, "en")).content.decode()
    assert '<code>961700</code> <span class="muted hs-official" lang="en">Vacuum' in english


def test_an_unknown_port_is_shown_as_written_and_marked(client):
    product = make_product(port_of_loading="Yiwu dry port", slug="yiwu")
    html = client.get(product_url(product, "zh-hans")).content.decode()
    assert '<td lang="en">Yiwu dry port</td>' in html


# --- never-translated text marked with its language ---------------------------------------


def test_attributes_and_about_in_another_language_are_marked(client):
    company = make_company(
        legal_name="宁波保温杯有限公司",
        english_name="Ningbo Flask Co., Ltd.",
        original_language="zh-hans",
        description="<p>我们是一家保温杯工厂。</p>",
    )
    product = make_product(
        company=company,
        title="不锈钢保温杯",
        original_language="zh-hans",
        attributes=[{"name": "材质", "value": "304 不锈钢"}],
    )
    translate(product, "en", "Stainless steel vacuum cup")
    html = client.get(product_url(product, "en")).content.decode()
    assert '<table class="data attributes-table" lang="zh-Hans">' in html
    assert '<span class="lang-mark original">Original in 简体中文</span>' in html
    own = client.get(product_url(product, "zh-hans")).content.decode()
    assert '<table class="data attributes-table" lang="zh-Hans">' in own
    assert "lang-mark original" not in own

    page = client.get(f"/en/companies/{company.slug}/").content.decode()
    about = page.split('id="about-heading"')[1].split("</section>")[0]
    assert '<span class="lang-mark original">Original in 简体中文</span>' in about
    assert '<div class="rich-text" lang="zh-Hans"><p>我们是一家保温杯工厂。</p></div>' in about
    assert "lang-mark original" not in client.get(f"/zh-hans/companies/{company.slug}/").text


# --- fallback order -----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_a_turkish_listing_with_an_english_translation_is_shown_in_english(client, language):
    _root, _branch, leaf, _other = make_tree()
    product = make_product(
        category=leaf, title="Paslanmaz çelik termos", original_language="tr", slug="termos"
    )
    translate(product, "en", "Stainless steel flask")
    html = client.get(product_url(product, language)).content.decode()
    assert '<h1 lang="en">Stainless steel flask</h1>' in html
    assert '<h3 lang="tr">Paslanmaz çelik termos</h3>' in html  # the original, on the page
    cards = client.get(f"/{language}/categories/{leaf.slug}/").content.decode()
    assert '<h3 class="product-title" lang="en">Stainless steel flask</h3>' in cards
    # The search results' cards (hand-built loading) agree.
    (loaded, thumbnail) = load_products([product.pk], language)[product.pk]
    assert product_card(loaded, thumbnail, language).text.title == "Stainless steel flask"


# --- Simplified and Traditional -----------------------------------------------------------


def test_a_simplified_listing_on_a_traditional_page_is_converted_and_marked(client):
    _root, _branch, leaf, _other = make_tree()
    company = make_company(legal_name="宁波实业有限公司", original_language="zh-hans")
    product = make_product(
        company=company, category=leaf, title="不锈钢保温杯", original_language="zh-hans"
    )
    html = client.get(product_url(product, "zh-hant")).content.decode()
    assert '<h1 lang="zh-Hant">不鏽鋼保溫杯</h1>' in html
    assert '<span class="lang-mark converted">由簡體中文自動轉換</span>' in html
    assert '<a href="#original">檢視原文</a>' in html
    assert 'id="original"' in html and '<h3 lang="zh-Hans">不锈钢保温杯</h3>' in html
    assert "寧波實業有限公司" in html

    cards = client.get(f"/zh-hant/categories/{leaf.slug}/").content.decode()
    assert '<h3 class="product-title" lang="zh-Hant">不鏽鋼保溫杯</h3>' in cards
    assert '<span class="lang-mark converted">由簡體中文自動轉換</span>' in cards
    assert "寧波實業有限公司" in cards and "宁波实业有限公司" not in cards
    (loaded, thumbnail) = load_products([product.pk], "zh-hant")[product.pk]
    card = product_card(loaded, thumbnail, "zh-hant")
    assert (card.text.title, card.company_name) == ("不鏽鋼保溫杯", "寧波實業有限公司")

    # The company page: the name converted, the original beside it, marked.
    page = client.get(f"/zh-hant/companies/{company.slug}/").content.decode()
    assert '<h1 lang="zh-Hant">寧波實業有限公司' in page
    assert '由簡體中文自動轉換</span> 原文： <span lang="zh-Hans">宁波实业有限公司</span>' in page

    # Nothing converted for readers of the script it was written in, or of English.
    own = client.get(product_url(product, "zh-hans")).content.decode()
    assert '<h1 lang="zh-Hans">不锈钢保温杯</h1>' in own and "lang-mark converted" not in own


def test_a_traditional_listing_on_a_simplified_page_is_converted(client):
    company = make_company(legal_name="臺灣保溫瓶股份有限公司", original_language="zh-hant")
    product = make_product(company=company, title="不鏽鋼保溫杯", original_language="zh-hant")
    html = client.get(product_url(product, "zh-hans")).content.decode()
    assert '<h1 lang="zh-Hans">不锈钢保温杯</h1>' in html
    assert '<span class="lang-mark converted">由繁体中文自动转换</span>' in html
    assert "台湾保温瓶股份有限公司" in html


def test_a_results_page_is_converted_once_then_remembered():
    from tradepost.core import chinese_scripts

    titles = [f"不锈钢真空保温杯 {n} 号 双层 大容量 户外运动水壶" for n in range(20)]
    chinese_scripts._convert_remembered.cache_clear()
    first = [convert_script(t, written_in="zh-hans", reader="zh-hant") for t in titles]
    again = [convert_script(t, written_in="zh-hans", reader="zh-hant") for t in titles]
    assert first == again and first[0].startswith("不鏽鋼真空保溫杯")
    info = chinese_scripts._convert_remembered.cache_info()
    assert (info.misses, info.hits) == (20, 20)

"""The demo plan: deterministic, multilingual, realistic terms; no database writes."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal

import pytest

from tradepost.catalog.models import PaymentTerm, Unit
from tradepost.companies.models import BusinessType, EmployeeRange, Market
from tradepost.core.countries import is_country
from tradepost.core.currencies import is_currency
from tradepost.core.incoterms import Incoterm
from tradepost.demo.generator import (
    DEFAULT_COMPANIES,
    DEFAULT_PRODUCTS,
    DEFAULT_SEED,
    LeafCategory,
    PlanError,
    build_plan,
    choose_leaf,
    hs_code_for,
)
from tradepost.demo.selectors import leaf_categories
from tradepost.demo.vocabulary import load_vocabulary

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def leaves(category_tree) -> list[LeafCategory]:
    return leaf_categories()


def plan(leaves, *, seed=DEFAULT_SEED, companies=30, products=200):
    return build_plan(
        seed=seed,
        companies=companies,
        products=products,
        vocab=load_vocabulary(),
        leaves=leaves,
    )


def test_the_same_seed_gives_the_same_plan_and_another_seed_another(leaves):
    first, second = plan(leaves), plan(leaves)
    assert [p.title for p in first.products] == [p.title for p in second.products]
    assert [c.legal_name for c in first.companies] == [c.legal_name for c in second.companies]
    assert [p.price_min for p in first.products] == [p.price_min for p in second.products]
    other = plan(leaves, seed=DEFAULT_SEED + 1)
    assert [p.title for p in other.products] != [p.title for p in first.products]


def test_the_default_plan_is_a_global_multilingual_marketplace(leaves):
    full = plan(leaves, companies=DEFAULT_COMPANIES, products=DEFAULT_PRODUCTS)
    assert len(full.companies) >= 150
    assert len({c.country for c in full.companies}) >= 25
    assert len(full.products) >= 3000
    languages = Counter(p.original_language for p in full.products)
    assert languages["zh-hans"] + languages["zh-hant"] > len(full.products) / 2
    assert languages["zh-hant"] >= 100
    assert languages["en"] >= 500
    assert min(languages["es"], languages["vi"], languages["tr"]) >= 30
    titles = [p.title for p in full.products]
    assert len(set(titles)) >= 0.95 * len(titles)
    assert sum(1 for p in full.products if p.translations) >= 500
    # every industry has suppliers, and every product type is listed by someone
    vocab = load_vocabulary()
    assert {t for c in full.companies for t in c.industries} >= set(vocab.industries)
    assert {p.template_key for p in full.products} == {t.key for t in vocab.templates}


def test_chinese_suppliers_write_simplified_and_taiwan_hong_kong_traditional(leaves):
    result = plan(leaves)
    companies = {c.index: c for c in result.companies}
    script = {"CN": "zh-hans", "TW": "zh-hant", "HK": "zh-hant", "VN": "vi", "TR": "tr"}
    for product in result.products:
        company = companies[product.company_index]
        if company.country in script:
            assert product.original_language == script[company.country]
        if product.original_language in ("zh-hans", "zh-hant"):
            assert CJK.search(product.title), product.title
        if product.original_language == "en":
            assert not CJK.search(product.title), product.title
    for company in result.companies:
        if company.country in ("CN", "TW", "HK"):
            assert CJK.search(company.legal_name)
            assert company.english_name and not CJK.search(company.english_name)


def test_every_product_has_valid_terms_and_a_leaf_category(leaves):
    leaf_ids = {leaf.id for leaf in leaves}
    result = plan(leaves)
    units = set(Unit.values)
    for product in result.products:
        assert product.category_id in leaf_ids
        assert product.moq > 0 and product.moq_unit in units
        assert Decimal(0) < product.price_min <= product.price_max
        assert is_currency(product.currency)
        assert product.incoterms and set(product.incoterms) <= set(Incoterm.values)
        assert product.payment_terms and set(product.payment_terms) <= set(PaymentTerm.values)
        assert product.port_of_loading
        assert 1 <= product.lead_time_days <= 90
        assert product.supply_capacity >= product.moq
        assert is_country(product.origin_country)
        assert product.hs_code.isdigit() and len(product.hs_code) in (2, 4, 6)
        assert 0 < len(product.title) <= 200 and len(product.keywords) <= 300
        assert product.attributes and all(a["name"] and a["value"] for a in product.attributes)
        assert product.pictures and all(key in result.pictures for key in product.pictures)
        assert "<script" not in product.description


def test_companies_have_complete_profiles(leaves):
    result = plan(leaves)
    for company in result.companies:
        assert is_country(company.country)
        assert set(company.business_types) <= set(BusinessType.values)
        assert company.employee_range in EmployeeRange.values
        assert set(company.main_markets) <= set(Market.values)
        assert 1980 < company.year_established <= 2025
        assert company.website.endswith(".example")
        assert company.owner.email.endswith(".example")
        assert company.description.startswith("<p>")
        if company.is_buyer_only:
            assert company.export_share is None
        else:
            assert 0 < company.export_share <= 100 and company.ports
    assert len({c.slug for c in result.companies}) == len(result.companies)
    supplier, buyer = result.companies[0], result.companies[1]
    assert supplier.country == "CN" and not supplier.is_buyer_only
    assert supplier.business_types == [BusinessType.MANUFACTURER]
    assert buyer.country == "NL" and buyer.is_buyer_only
    assert not [p for p in result.products if p.company_index == buyer.index]
    assert [login.email for login in result.logins] == [
        "supplier@demo.example",
        "buyer@demo.example",
        "operator@demo.example",
    ]


def test_templates_find_their_leaf_by_keywords():
    tree = [
        LeafCategory(1, "home-garden-towels", "Towels", "0001.0001", "home-garden", ("6302",)),
        LeafCategory(
            2, "home-garden-vacuum-flasks", "Vacuum flasks", "0001.0002", "home-garden", ("9617",)
        ),
        LeafCategory(3, "lighting-led-bulbs", "LED bulbs", "0002.0001", "lighting", ()),
    ]
    templates = {t.key: t for t in load_vocabulary().templates}
    flask = templates["vacuum-flask"]
    assert choose_leaf(flask, tree).slug == "home-garden-vacuum-flasks"
    assert hs_code_for(flask, tree[1]) == "961700"  # the template's code refines 9617
    # no keyword matches: the first leaf of the same top level
    assert choose_leaf(templates["scented-candle"], tree).slug == "home-garden-towels"
    # no leaf under the top level: the best leaf anywhere
    assert choose_leaf(templates["ballpoint-pen"], tree).id in {1, 2, 3}


def test_the_shipped_tree_gives_every_template_a_leaf_of_its_own_top_level(leaves):
    tops = {leaf.top_slug for leaf in leaves}
    for template in load_vocabulary().templates:
        leaf = choose_leaf(template, leaves)
        if template.top in tops:
            assert leaf.top_slug == template.top, template.key


def test_a_plan_needs_categories_and_two_companies(leaves):
    with pytest.raises(PlanError):
        plan([])
    with pytest.raises(PlanError):
        plan(leaves, companies=1)

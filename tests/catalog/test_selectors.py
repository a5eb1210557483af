"""Public catalogue reads: viewer-language text, subtrees, counts, listing queries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation

from tests.factories.catalog import add_image, make_product, make_tree, translate
from tests.factories.companies import make_company
from tradepost.catalog import selectors
from tradepost.catalog.models import ProductStatus
from tradepost.web.templatetags.tradepost_catalog import format_price_range, format_quantity

pytestmark = pytest.mark.django_db


def test_translation_in_the_viewer_language_is_chosen():
    product = make_product(title="不锈钢保温杯", original_language="zh-hans")
    translate(product, "en", "Stainless steel vacuum cup", "<p>Keeps drinks hot.</p>")

    english = selectors.localised_text(product, "en")
    assert english.title == "Stainless steel vacuum cup"
    assert english.is_translation and english.language == "en"
    assert not english.in_other_language

    simplified = selectors.localised_text(product, "zh-hans")
    assert simplified.title == "不锈钢保温杯"
    assert not simplified.is_translation and not simplified.in_other_language


def test_original_is_shown_and_marked_when_no_translation_exists():
    product = make_product(title="Paslanmaz çelik termos", original_language="tr")

    for language in ("en", "zh-hans", "zh-hant"):
        text = selectors.localised_text(product, language)
        assert text.title == "Paslanmaz çelik termos"
        assert text.in_other_language and not text.is_converted
        assert text.lang_tag == "tr"
        assert text.language_name == "Türkçe"


def test_fallback_is_the_viewer_language_then_english_then_the_original():
    product = make_product(title="Paslanmaz çelik termos", original_language="tr")
    translate(product, "en", "Stainless steel flask")
    for language in ("zh-hans", "zh-hant"):
        text = selectors.localised_text(product, language)
        assert text.title == "Stainless steel flask"
        assert text.language == "en" and text.is_translation and text.in_other_language
    translate(product, "zh-hans", "不锈钢保温杯")
    assert selectors.localised_text(product, "zh-hans").title == "不锈钢保温杯"
    # The other Chinese script, converted, comes before English.
    traditional = selectors.localised_text(product, "zh-hant")
    assert traditional.title == "不鏽鋼保溫杯"
    assert traditional.converted_from == "zh-hans" and traditional.is_translation


def test_the_other_chinese_script_is_converted_for_display():
    product = make_product(
        title="不锈钢保温杯", description="<p>保温效果好</p>", original_language="zh-hans"
    )
    translate(product, "en", "Stainless steel vacuum cup")

    traditional = selectors.localised_text(product, "zh-hant")
    assert traditional.title == "不鏽鋼保溫杯"
    assert traditional.description == "<p>保溫效果好</p>"
    assert traditional.is_converted and traditional.converted_from == "zh-hans"
    assert traditional.lang_tag == "zh-Hant" and not traditional.in_other_language
    assert not traditional.is_translation

    back = make_product(title="不鏽鋼保溫杯", original_language="zh-hant")
    simplified = selectors.localised_text(back, "zh-hans")
    assert simplified.title == "不锈钢保温杯" and simplified.converted_from == "zh-hant"
    assert selectors.localised_text(back, "zh-hant").title == "不鏽鋼保溫杯"
    assert not selectors.localised_text(back, "zh-hant").is_converted


def test_translation_without_description_falls_back_to_the_original_description():
    product = make_product(title="Cup", description="<p>Original</p>", original_language="en")
    translate(product, "zh-hans", "杯子")
    text = selectors.localised_text(product, "zh-hans")
    assert text.title == "杯子"
    assert text.description == "<p>Original</p>"


def test_unknown_viewer_language_is_treated_as_english():
    product = make_product(title="Cup", original_language="en")
    assert selectors.localised_text(product, "xx").viewer_language == "en"


def test_category_subtree_listing_includes_descendants_only():
    root, branch, leaf, other_leaf = make_tree()
    in_leaf = make_product(category=leaf)
    in_other = make_product(category=other_leaf)
    elsewhere = make_product(category=make_tree()[2])

    listed = selectors.category_products(category=root, language="en", sort="newest")
    assert {p.pk for p in listed} == {in_leaf.pk, in_other.pk}

    listed = selectors.category_products(category=branch, language="en", sort="newest")
    assert [p.pk for p in listed] == [in_leaf.pk]
    assert elsewhere.pk not in [p.pk for p in listed]


def test_subtree_does_not_match_a_sibling_whose_path_shares_a_prefix():
    root, _branch, leaf, _other = make_tree()
    make_product(category=leaf)
    # A fake sibling path "<root path>5" would match a bare startswith(root.path).
    from tradepost.catalog.models import Category

    sibling = Category.objects.create(
        slug="lookalike",
        path=root.path + "5",
        depth=0,
        name_en="x",
        name_zh_hans="x",
        name_zh_hant="x",
    )
    make_product(category=sibling)
    listed = selectors.category_products(category=root, language="en", sort="newest")
    assert all(p.category_id != sibling.pk for p in listed)


@pytest.mark.parametrize(
    "status", [ProductStatus.DRAFT, ProductStatus.HIDDEN, ProductStatus.DELETED]
)
def test_unpublished_products_are_not_public(status):
    _root, _branch, leaf, _other = make_tree()
    product = make_product(category=leaf, status=status)
    assert selectors.get_published_product(product.pk) is None
    assert product not in selectors.published_products()
    cards = selectors.newest_product_cards(language="en")
    assert product.pk not in [c.product.pk for c in cards]


def test_category_tree_counts_published_products_of_whole_subtrees():
    root, branch, leaf, other_leaf = make_tree()
    make_product(category=leaf)
    make_product(category=leaf)
    make_product(category=other_leaf)
    make_product(category=leaf, status=ProductStatus.HIDDEN)

    tree = selectors.category_tree(language="zh-hans", max_depth=1)
    node = next(n for n in tree if n.category == root)
    assert node.name == "家居园艺"
    assert node.product_count == 3
    children = {c.category.pk: c.product_count for c in node.children}
    assert children == {branch.pk: 2, other_leaf.pk: 1}

    sub = selectors.subcategory_nodes(branch, language="en")
    assert [(n.category.pk, n.product_count) for n in sub] == [(leaf.pk, 2)]


def test_sort_by_price_puts_products_without_price_last():
    _root, _branch, leaf, _other = make_tree()
    cheap = make_product(category=leaf, price_min=Decimal("1"), price_max=Decimal("2"))
    dear = make_product(category=leaf, price_min=Decimal("9"), price_max=Decimal("10"))
    unknown = make_product(category=leaf, price_min=None, price_max=None)
    for sort, expected in [
        ("price_asc", [cheap, dear, unknown]),
        ("price_desc", [dear, cheap, unknown]),
    ]:
        listed = selectors.category_products(category=leaf, language="en", sort=sort)
        assert list(listed) == expected


def test_an_unknown_sort_is_the_newest_first():
    _root, _branch, leaf, _other = make_tree()
    older = make_product(category=leaf)
    newer = make_product(category=leaf)
    listed = selectors.category_products(category=leaf, language="en", sort="nonsense")
    assert list(listed) == [newer, older]


def test_a_company_lists_its_published_products_newest_first():
    company = make_company()
    older = make_product(company=company)
    newer = make_product(company=company)
    make_product(company=company, status=ProductStatus.DRAFT)
    make_product()  # another company's
    listed = selectors.company_products(company_id=company.pk, language="en")
    assert list(listed) == [newer, older]


def test_cards_load_without_n_plus_one(django_assert_max_num_queries, media_root):
    for n in range(8):
        company = make_company()
        product = make_product(company=company, original_language="zh-hans", title=f"杯子{n}")
        translate(product, "en", f"Cup {n}")
        add_image(product)
    with django_assert_max_num_queries(3):
        cards = selectors.newest_product_cards(language="en")
        assert all(c.thumbnail_url for c in cards)
        assert {c.text.title for c in cards} == {f"Cup {n}" for n in range(8)}
        assert all(c.company_country for c in cards)


def test_product_detail_shows_terms_labels_and_attributes():
    from tradepost.catalog.models import HSCode

    HSCode.objects.update_or_create(
        code="961700", defaults={"description": "Vacuum flasks", "level": 6}
    )
    product = make_product(
        payment_terms=["tt", "lc", "bogus"],
        incoterms=["FOB", "<b>"],
        hs_code="961700",
        origin_country="CN",
        attributes=[{"name": "Material", "value": "Steel"}, ["Colour", "Red"], {"x": 1}],
    )
    with translation.override("en"):
        detail = selectors.product_detail(
            selectors.get_published_product(product.pk), language="en"
        )
    assert detail.payment_terms == ["T/T (bank transfer)", "L/C (letter of credit)"]
    assert detail.incoterms == ["FOB"]
    assert detail.hs_description == "Vacuum flasks"
    assert detail.origin_country == "China"
    assert detail.attributes == [("Material", "Steel"), ("Colour", "Red")]
    assert detail.breadcrumbs[-1].category == product.category


def test_attribute_shapes():
    assert selectors.product_attributes({"Size": "L"}) == [("Size", "L")]
    assert selectors.product_attributes("nonsense") == []
    assert selectors.product_attributes([{"name": "Sizes", "value": ["S", "M"]}]) == [
        ("Sizes", "S, M")
    ]


def test_prices_and_quantities_read_well():
    with translation.override("en"):
        assert (
            format_price_range(Decimal("2.5000"), Decimal("3.8000"), "USD", "pieces")
            == "US$2.50–3.80 / piece"
        )
        assert format_price_range(None, None, "USD", "pieces") == "Price on request"
        assert format_price_range(Decimal("2"), Decimal("2"), "CNY") == "CN¥2.00"
        assert format_price_range(Decimal("1500"), None, "JPY", "kg") == "From JP¥1,500 / kilogram"
        assert format_quantity(Decimal("1000.000"), "pieces") == "1,000 pieces"
        assert format_quantity(Decimal("1"), "sets") == "1 set"

"""The product form's category picker: leaf paths in the viewer's language, and suggestions
from a title in either language (the shipped category tree, loaded by a migration)."""

from __future__ import annotations

import pytest

from tradepost.catalog.category_picker import category_options, suggest_categories
from tradepost.catalog.models import Category

pytestmark = pytest.mark.django_db


def leaf_slug(option) -> str:
    return Category.objects.get(pk=option.id).slug


def test_options_are_every_leaf_with_its_full_path_in_the_viewer_language():
    leaves = Category.objects.filter(is_leaf=True).count()
    english = category_options(language="en")
    chinese = category_options(language="zh-hant")
    assert len(english) == len(chinese) == leaves > 500
    flasks = next(o for o in english if leaf_slug(o) == "home-garden-vacuum-flasks")
    assert flasks.path.endswith(" › Vacuum Flasks and Insulated Bottles")
    assert flasks.path.count(" › ") >= 1
    # Typing matches every name of the lineage, in every language.
    assert "保温瓶" in flasks.terms and "保溫瓶" in flasks.terms and "vacuum" in flasks.terms
    traditional = next(o for o in chinese if o.id == flasks.id)
    assert traditional.path.endswith("保溫瓶")


@pytest.mark.parametrize(
    "title",
    [
        "Stainless steel vacuum flask 500 ml",
        "不锈钢保温瓶 500ml",
        "不鏽鋼保溫瓶",  # traditional script
    ],
)
def test_a_title_suggests_the_leaf_it_names_first(title):
    suggestions = suggest_categories(title=title, language="en")
    assert 1 <= len(suggestions) <= 5
    assert leaf_slug(suggestions[0]) == "home-garden-vacuum-flasks"


def test_a_chinese_title_finds_an_english_only_match_through_the_glossary():
    # 保温杯 is not a category name; the glossary translates it ("vacuum flask").
    suggestions = suggest_categories(title="不锈钢保温杯", language="zh-hans")
    assert "home-garden-vacuum-flasks" in [leaf_slug(s) for s in suggestions]
    assert all("›" in s.path for s in suggestions)


def test_nothing_is_suggested_for_an_empty_or_meaningless_title():
    assert suggest_categories(title="", language="en") == []
    assert suggest_categories(title="   ", language="en") == []
    assert suggest_categories(title="zzqx 12345", language="en") == []


def test_suggestions_cost_one_query_as_the_supplier_types(django_assert_max_num_queries):
    suggest_categories(title="warm-up", language="en")
    with django_assert_max_num_queries(1):
        suggest_categories(title="LED desk lamp with USB charger", language="zh-hans")

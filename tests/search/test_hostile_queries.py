"""Whatever a visitor types, search answers (possibly with nothing) and never raises."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.search.selectors import search_companies, search_products, suggest

pytestmark = pytest.mark.django_db

HOSTILE = [
    "",
    " ",
    "x" * 10_000,
    "flask " * 2_000,
    "保温杯" * 3_000,
    "\x00\x01\x02\x1b[31m flask \x7f",
    "\ud800 flask \udfff",
    "\ud83d",
    "!!!???...,,,;;;",
    "（）【】《》——……",
    '"',
    '"flask',
    '""',
    "*",
    "flask*",
    "title:flask",
    ":",
    "(",
    "(flask",
    ")",
    "AND",
    "flask AND OR NOT",
    "+flask -steel",
    "flask~2",
    "flask^10",
    "[1 TO 5]",
    "/.*/",
    "\\",
    "'; DROP TABLE catalog_product; --",
    "1 OR 1=1",
    "<script>alert(1)</script>",
    "%00",
    "\u200b\u200b",
    "\ufeff",
    "𠀀𠀁𪜀",
    "🙂🙂",
    "ｆｌａｓｋ",
]


@pytest.fixture(autouse=True)
def _catalogue():
    index(make_product(title="Stainless steel vacuum flask"), make_product(title="保温杯 500ml"))


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_product_queries_never_raise(query):
    result = search_products(query=query, language="en")
    assert result.total >= 0
    for hit in result.hits:
        assert "<script>" not in str(hit.title_html)


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_company_queries_and_suggestions_never_raise(query):
    assert search_companies(query=query, language="zh-hant").total >= 0
    assert isinstance(suggest(query, "zh-hant"), list)


def test_query_syntax_is_not_interpreted():
    assert search_products(query="flask", language="en").total == 1
    for query in ("flask:", "(flask)", "flask*", '"flask', "flask AND NOT", "+flask"):
        assert search_products(query=query, language="en").total == 1, query
    assert search_products(query="x" * 10_000, language="en").total == 0


def test_non_string_input_is_treated_as_empty():
    assert search_products(query=None, language=None).total == 2  # type: ignore[arg-type]
    assert suggest(None, "en") == []  # type: ignore[arg-type]

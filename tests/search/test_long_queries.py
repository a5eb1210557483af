"""Queries of four words or more: most words must match, and evaluating them from their
rarest words finds the same documents with the same scores."""

from __future__ import annotations

import itertools

import pytest

from tests.factories import make_product
from tests.search.factories import index
from tradepost.search.analysis import analyze_query
from tradepost.search.index import PRODUCT_GRAM_FIELDS, PRODUCT_WORD_FIELDS, searcher
from tradepost.search.querying import words_clause
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db

WORDS = ["stainless", "steel", "vacuum", "flask", "lid"]


@pytest.fixture
def catalogue():
    products = []
    # Every combination of two to five of the words, in titles, and a few in descriptions:
    # common words ("steel") everywhere, rare ones ("lid") in few listings.
    for size in range(2, 6):
        for combination in itertools.combinations(WORDS, size):
            products.append(make_product(title=" ".join(combination) + " item"))
    for n in range(12):
        products.append(make_product(title=f"Steel bar {n}", description="stainless steel"))
    products.append(make_product(title="保温杯 不锈钢 真空", description="vacuum flask lid"))
    index()
    return products


def _hits(query, *, doc_freq):
    s = searcher()
    clause = words_clause(
        analyze_query(query).words,
        PRODUCT_WORD_FIELDS,
        PRODUCT_GRAM_FIELDS,
        doc_freq=doc_freq,
    )
    result = s.search(clause, 1000, True)
    ids = s.fast_field_values("id", [address for _score, address in result.hits])
    return result.count, {
        int(doc_id): round(score, 4) for (score, _a), doc_id in zip(result.hits, ids, strict=True)
    }


@pytest.mark.parametrize(
    "query",
    [
        "stainless steel vacuum flask",
        "stainless steel vacuum flask lid",
        "steel steel vacuum flask lid",
        "flask lid stainless steel",
        "stainless steel vacuum 保温杯",
    ],
)
def test_the_rare_word_guard_changes_neither_hits_nor_scores(catalogue, query):
    plain_count, plain = _hits(query, doc_freq=None)
    guarded_count, guarded = _hits(query, doc_freq=searcher().doc_freq)
    assert plain_count == guarded_count == len(plain) > 0
    assert guarded == plain


def test_most_words_of_a_long_query_must_match(catalogue):
    result = search_products(query="stainless steel vacuum flask", language="en", per_page=100)
    titles = {hit.product.title for hit in result.hits}
    assert "stainless steel vacuum flask item" in titles
    assert "stainless steel vacuum item" in titles  # three of four
    assert "stainless steel item" not in titles  # two of four
    assert result.total == len(titles)

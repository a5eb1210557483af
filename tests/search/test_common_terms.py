"""Boilerplate words (in a large share of all descriptions) stop matching in descriptions at
scale, and still match in titles; small catalogues are unaffected."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.search import querying
from tradepost.search.index import searcher
from tradepost.search.querying import CommonTerms
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue():
    titled = make_product(title="Wholesale walnut tray", description="Hand finished.")
    described = [
        make_product(title=f"Oak board {n}", description="Wholesale prices for every order.")
        for n in range(3)
    ]
    make_product(title="Linen napkin", description="Soft linen.")
    cjk = make_product(title="定制 保温杯", description="不锈钢 双层")
    make_product(title="竹 砧板", description="工厂 定制")
    index()
    return titled, described, cjk


def _ids(query):
    return {hit.product.pk for hit in search_products(query=query, language="en").hits}


def test_below_the_floor_every_description_still_matches(catalogue):
    titled, described, _cjk = catalogue
    assert _ids("wholesale") == {titled.pk, *(p.pk for p in described)}


def test_a_boilerplate_word_matches_only_where_it_says_what_a_listing_is(catalogue, monkeypatch):
    titled, described, cjk = catalogue
    monkeypatch.setattr(querying, "COMMON_TERM_MIN_DOCS", 1)
    monkeypatch.setattr(querying, "COMMON_TERM_FRACTION", 0.0)
    # "wholesale" is in three descriptions (over the limit of one): the title still counts.
    assert _ids("wholesale") == {titled.pk}
    # 定制 is in one title and one description (not over the limit): both match.
    assert len(_ids("定制")) == 2
    # A word in one description only is not boilerplate.
    assert len(_ids("linen")) == 1
    assert {p.pk for p in described} <= _ids("oak board")
    assert cjk.pk in _ids("保温杯")


def test_the_limit_follows_the_catalogue_size(catalogue, monkeypatch):
    monkeypatch.setattr(querying, "COMMON_TERM_MIN_DOCS", 2)
    common = CommonTerms(searcher())
    assert common.limit == 2
    assert common("desc_words", "wholesal")  # in three descriptions
    assert not common("title_words", "wholesal")  # titles are never cut
    assert not common("desc_words", "linen")
    monkeypatch.setattr(querying, "COMMON_TERM_FRACTION", 0.9)
    documents = searcher().num_docs
    assert documents >= 7
    assert CommonTerms(searcher()).limit == int(documents * 0.9)

"""The clear-match rule decided on a document's tokens (`search.sketches`, what the
percolator runs) agrees with the same rule stated on the index (`search.alerting`), pair by
pair, for Chinese, English and mixed queries against listings in three scripts; and the
registry's keys never miss a document that matches clearly (pigeonhole on bigrams and on
pairs of characters)."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_product, named_category
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.search import documents
from tradepost.search.alerting import _clear, compile_saved
from tradepost.search.documents import CategoryTree
from tradepost.search.index import Shared, product_fields, snapshot
from tradepost.search.querying import term
from tradepost.search.sketches import (
    DocumentTokens,
    clear_by_tokens,
    count_kind,
    count_units,
    keyed_bits,
    may_be_clear,
    registry_keys,
    sketch_of,
    weight,
)

pytestmark = pytest.mark.django_db

TITLES = [
    "304不锈钢真空保温杯 500ml 学生便携水杯",
    "真空保溫杯 不鏽鋼 大容量 辦公室",
    "Stainless steel vacuum flask thermos 1L",
    "陶瓷马克杯 创意咖啡杯 带盖勺",
    "儿童保温饭盒 双层 不锈钢",
    "Ceramic coffee mug with lid",
    "Nikon/尼康z6ii z7ii二代全画幅微单机身 24-70套机",
    "桌布防水防油 北欧餐桌布 长方形",
    "LED desk lamp eye-care dimmable",
    "背景墙吊灯 北欧客厅 ins吊灯",
]
QUERIES = [
    "保温杯",
    "不锈钢保温杯 500ml",
    "vacuum flask",
    "stainless steel thermos",
    "coffee mug",
    "尼康z62",
    "桌布防油防水",
    "背景墙吊灯",
    "led lamp",
    "真空保溫杯",
    "陶瓷杯子",
    "ceramic cup lid",
]


def test_the_token_rule_and_the_index_rule_agree_and_the_keys_find_every_clear_match():
    category = named_category("Household", "家居用品", "家居用品")
    company = make_company(legal_name="Yiwu Goods", country="CN", original_language="zh-hans")
    products = [
        make_product(company=company, category=category, slug=f"p{n}", title=title)
        for n, title in enumerate(TITLES)
    ]
    index(*products)
    snap = snapshot()
    shared = Shared(CategoryTree.load())
    records = documents.load_published_products([p.pk for p in products])
    tokens = {
        pk: DocumentTokens.from_fields("product", product_fields(record, shared))
        for pk, record in records.items()
    }
    total = count_kind("product", snap)
    clear_pairs = 0
    for query in QUERIES:
        sketch = sketch_of(query)
        weights = [weight(count_units("product", ways, snap), total) for _u, ways in sketch["u"]]
        saved = compile_saved("product", query, {}, snap)
        keys = registry_keys(sketch)
        pruned = registry_keys(sketch, weights)  # the least specific units left out
        for product in products:
            by_tokens = clear_by_tokens(sketch, weights, tokens[product.pk])
            on_index = _clear(saved, snap.searcher, [term("key", f"p:{product.pk}")])
            assert by_tokens == on_index, (query, product.title)
            if by_tokens:
                clear_pairs += 1
                held = tokens[product.pk].keys()
                for chosen, filed in (
                    (keys, keyed_bits(None, len(sketch["u"]))),
                    (pruned, keyed_bits(weights, len(sketch["u"]))),
                ):
                    bits = 0
                    for key in held & set(chosen):
                        bits |= chosen[key]
                    assert may_be_clear(weights, bits, filed), (query, product.title)
    # Not a vacuous agreement: several pairs match, most do not.
    assert 10 <= clear_pairs <= 60

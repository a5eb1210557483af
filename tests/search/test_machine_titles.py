"""A listing's stored machine-translated title is in its search document (docs/adr/0036): a
buyer finds a Chinese listing by an English word only its translation holds, once the
background task has translated it; the supplier's own translation wins over it; the
indexer reads the translations of a chunk of listings in one query."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories.catalog import make_product, named_category
from tests.factories.catalog import translate as supplier_translates
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.catalog.models import Product
from tradepost.catalog.tasks import translate_products
from tradepost.search import documents
from tradepost.search.indexer import apply_outbox
from tradepost.search.models import IndexOutbox
from tradepost.search.selectors import search_products
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db

#: "Silicone Foldable Water Bottle" once glossed into English. "bottle" is in no other text
#: of the listing, and the lexicon's translations of it (瓶子, 瓶装) are not in its title.
TITLE = "硅胶折叠水杯"


def found(query: str, language: str = "en") -> list[int]:
    result = search_products(query=query, language=language, with_facets=False)
    return [hit.product.id for hit in result.hits]


@pytest.fixture
def cups() -> list[Product]:
    category = named_category("Kitchen Tools", "厨房工具", "廚房工具")
    company = make_company(legal_name="宁波好运有限公司", original_language="zh-hans")
    return [
        make_product(
            company=company,
            category=category,
            slug=f"cup-{n}",
            title=f"{TITLE} {n}",
            original_language="zh-hans",
        )
        for n in range(3)
    ]


def test_a_chinese_listing_is_found_by_a_word_only_its_machine_translation_has(cups):
    cup = cups[0]
    index(cup)
    assert found("bottle") == []
    before = IndexOutbox.objects.count()

    translate_products.call([cup.pk])

    # The task wrote the translation after the listing was indexed, and queued it again.
    assert IndexOutbox.objects.filter(kind="product", object_id=cup.pk).count() >= 1
    assert IndexOutbox.objects.count() > before
    apply_outbox()
    [hit] = search_products(query="bottle", language="en", with_facets=False).hits
    assert hit.product.id == cup.pk
    assert "<mark>Bottle</mark>" in str(hit.title_html)  # the translated title shown
    # Still found by its own words.
    assert cup.pk in found(TITLE, "zh-hans")


def test_translating_again_queues_nothing(cups):
    cup = cups[0]
    translate_products.call([cup.pk])
    before = IndexOutbox.objects.count()
    assert translate_products.call([cup.pk]) == 0
    assert IndexOutbox.objects.count() == before


def test_the_suppliers_own_translation_is_indexed_instead(cups):
    cup = cups[0]
    supplier_translates(cup, "en", "Acmefold travel cup")
    translate_products.call([cup.pk])
    [record] = documents.load_published_products([cup.pk]).values()
    assert record.machine_titles == []
    index(cup)
    assert found("bottle") == []
    assert found("acmefold") == [cup.pk]


def test_the_machine_titles_of_a_chunk_are_read_in_one_query(cups):
    translate_products.call([cup.pk for cup in cups])
    assert StoredTranslation.objects.filter(kind="title").count() == len(cups)
    table = StoredTranslation._meta.db_table
    counts = []
    for chunk in ([cups[0].pk], [cup.pk for cup in cups]):
        with CaptureQueriesContext(connection) as queries:
            records = documents.load_published_products(chunk)
        assert sum(table in q["sql"] for q in queries) == 1
        counts.append(len(queries))
        assert all(
            "Bottle" in title for record in records.values() for title in record.machine_titles
        )
        assert all(len(record.machine_titles) == 1 for record in records.values())
    assert counts[0] == counts[1]  # as many statements for one listing as for three
    with CaptureQueriesContext(connection) as queries:
        [chunk] = documents.iter_published_products(chunk_size=len(cups))
    assert sum(table in q["sql"] for q in queries) == 1
    assert sorted(record.id for record in chunk if record.machine_titles) == sorted(
        cup.pk for cup in cups
    )

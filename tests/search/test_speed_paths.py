"""The fast paths give what the plain ones gave: the cached searcher and facet counts follow
every commit, the hydrated page equals the ORM's cards, and the rebuild's readers and text
analysis produce the same documents."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tests.factories.search import index
from tradepost.catalog.hydration import load_products, product_card
from tradepost.catalog.models import Product, ProductImage, ProductTranslation
from tradepost.catalog.selectors import fallback_languages, product_cards
from tradepost.search import documents
from tradepost.search import index as search_index
from tradepost.search.analysis import PieceCache, analyze_fields, word_chunks
from tradepost.search.documents import CategoryTree, plain_text
from tradepost.search.index import Shared, product_fields
from tradepost.search.selectors import ProductFilters, search_products

pytestmark = pytest.mark.django_db


def _facet(result, name):
    return {
        option.value: option.count
        for option in next(f for f in result.facets if f.name == name).options
    }


def test_the_searcher_is_reused_until_a_commit_and_facets_follow_commits():
    cn = make_company(country="CN")
    tw = make_company(country="TW")
    index(make_product(company=cn, title="Walnut serving tray"))
    first = search_index.snapshot()
    assert search_index.snapshot() is first  # nothing committed: same searcher
    result = search_products(query="walnut tray", language="en")
    assert result.total == 1 and _facet(result, "country") == {"CN": 1}
    # The same search again (facets now from the cache) and another page agree.
    assert _facet(search_products(query="walnut tray", language="en"), "country") == {"CN": 1}

    index(make_product(company=tw, title="Walnut tray with handles"))
    assert search_index.snapshot().generation > first.generation
    result = search_products(query="walnut tray", language="en")
    assert result.total == 2
    assert _facet(result, "country") == {"CN": 1, "TW": 1}
    narrowed = search_products(
        query="walnut tray", language="en", filters=ProductFilters(countries=("TW",))
    )
    # The country facet is counted without its own filter: CN can still be added.
    assert narrowed.total == 1 and _facet(narrowed, "country") == {"CN": 1, "TW": 1}


def test_a_commit_by_another_writer_is_seen_without_a_state_change():
    index(make_product(title="Linen napkin"))
    assert search_products(query="linen napkin", language="en").total == 1
    product = make_product(title="Linen napkin set")
    with search_index.index_writer() as writer:
        writer.add(
            search_index.product_document(
                documents.load_published_products([product.id])[product.id],
                Shared(CategoryTree.load()),
            )
        )
        writer.commit()
    assert search_products(query="linen napkin", language="en").total == 2


def test_hydrated_cards_equal_the_catalogue_cards():
    company = make_company(country="TW", english_name="Formosa Trading")
    product = make_product(
        company=company,
        title="不鏽鋼保溫杯",
        original_language="zh-hant",
        price_min=Decimal("3.50"),
        price_max=Decimal("4.25"),
        incoterms=["FOB", "EXW"],
    )
    ProductTranslation.objects.create(product=product, language="en", title="Steel flask")
    ProductTranslation.objects.create(product=product, language="zh-hans", title="不锈钢保温杯")
    ProductImage.objects.create(
        product=product, image="products/a.jpg", thumbnail="", position=1, width=9, height=9
    )
    # A picture row with no file at all is not the card's picture, though it comes first.
    ProductImage.objects.create(product=product, image="", thumbnail="", position=0)
    ProductImage.objects.create(
        product=product,
        image="products/b.jpg",
        thumbnail="products/thumbs/b.jpg",
        position=0,
        width=9,
        height=9,
    )
    plain = make_product(title="Plain mug")
    for language in ("en", "zh-hans", "zh-hant"):
        with CaptureQueriesContext(connection) as queries:
            loaded = load_products([product.id, plain.id, 10**9], language)
        # One statement; on Chinese pages one more, for the machine-translated title of the
        # English "Plain mug" (the Chinese listing has its supplier's translations).
        assert len(queries) == (1 if language == "en" else 2)
        assert set(loaded) == {product.id, plain.id}
        expected = {
            card.product.id: card
            for card in product_cards(
                Product.objects.filter(id__in=[product.id, plain.id])
                .select_related("company", "category")
                .prefetch_related("images", "translations"),
                language=language,
            )
        }
        for product_id, (hydrated, thumbnail) in loaded.items():
            card = product_card(hydrated, thumbnail, language)
            want = expected[product_id]
            assert card.text == want.text
            # The translations the viewer may be shown: theirs, the other Chinese script, English.
            assert sorted(t.language for t in hydrated.viewer_translations) == (
                sorted({"en", "zh-hans"} & set(fallback_languages(language)))
                if product_id == product.id
                else []
            )
            assert card.thumbnail_url == want.thumbnail_url
            assert (card.company_name, card.company_country, card.category_name) == (
                want.company_name,
                want.company_country,
                want.category_name,
            )
            with CaptureQueriesContext(connection) as queries:
                assert hydrated.company.slug and hydrated.category.path
                assert hydrated.price_min == want.product.price_min
                assert hydrated.incoterms == want.product.incoterms
                assert hydrated.published_at == want.product.published_at
            assert len(queries) == 0
            # What no card shows is not read (and would be read on access).
            assert {"attributes", "payment_terms"} <= hydrated.get_deferred_fields()
            assert "description" in hydrated.company.get_deferred_fields()
            with CaptureQueriesContext(connection) as queries:
                assert hydrated.attributes == want.product.attributes
            assert len(queries) == 1
    assert loaded[product.id][1].endswith("products/thumbs/b.jpg")


def test_hydration_skips_init_only_where_nothing_listens():
    from tradepost.catalog.hydration import _plain_init
    from tradepost.companies.models import Company

    assert _plain_init(Product) and _plain_init(Company) and _plain_init(ProductTranslation)
    # Its ImageField fills width and height in on post_init: built through from_db.
    assert not _plain_init(ProductImage)


@pytest.mark.parametrize(
    "text",
    [
        "<p>Stainless steel, 500 ml.</p><ul><li><strong>Model</strong>: H7</li></ul>",
        "a < b & c > d",
        "<b>bold</b>\u00a0nb",
        '<a href="https://example.com" title="a>b">link</a> tail',
        "<!-- note -->text",
        "&lt;script&gt; x &amp; y &nbsp; z",
        "plain text only",
    ],
)
def test_plain_text_matches_the_html_parser(text):
    import html

    from tradepost.core.html import html_to_text

    assert plain_text(text) == html.unescape(html_to_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "型号：H7。功率：60W；电压：DC 12V，颜色：白色. It's 5 kg: good!  Colour grey. 米色。米白",
        "500. ml and 3.5 mm; 12 V, 鋼筆。不鏽鋼保溫杯！ 500毫升\nLED ＬＥＤ? a's b.c. 1.2.3 " * 3,
        "Stainless steel vacuum flasks, 500ml; double wall. Keeps drinks hot for 12 hours.",
        "起订量300件，交货期约25天，从青岛发货。颜色：米色、白色，容量500，毫升 12V，LED灯",
    ],
)
def test_piece_cache_analysis_equals_whole_text_analysis(text):
    cache = PieceCache()
    assert cache.fields(text) == analyze_fields(text)
    assert cache.fields(text) == analyze_fields(text)  # from the memo


def test_range_reader_gives_the_records_the_id_reader_gives():
    company = make_company()
    products = [
        make_product(company=company, title=f"Oak board {n}", description="<p>Oak, oiled.</p>")
        for n in range(5)
    ]
    ProductTranslation.objects.create(product=products[1], language="zh-hans", title="橡木板")
    # The range reader keeps companies per process; ids repeat between tests.
    documents.forget_loaded_companies()
    by_ids = documents.load_published_products([p.id for p in products])
    by_range = documents.load_published_product_range(products[0].id, products[-1].id)
    assert [r.id for r in by_range] == [p.id for p in products]
    for record in by_range:
        twin = by_ids[record.id]
        differing = {
            name: (getattr(twin, name), getattr(record, name))
            for name in record.__dataclass_fields__
            if getattr(twin, name) != getattr(record, name)
        }
        assert not differing, differing
    shared = Shared(CategoryTree.load())
    fields = product_fields(by_range[1], shared)
    assert "橡木" in fields["title_words"] or "橡木板" in fields["title_words"]
    assert by_range[0].description == "Oak, oiled."


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
def test_the_rebuild_and_indexer_readers_look_products_up_by_id():
    """With a condition on the status, SQLite's planner (without statistics, as after a
    bulk load) walked the (status, published_at) index over every published product for
    each chunk of ids: at a million listings, 100 ms a chunk instead of one."""
    with connection.cursor() as cursor:
        # Without statistics, as the docstring says, whatever ran before on this connection:
        # an ANALYZE of another test's four rows (rolled back, but loaded by the planner)
        # makes a scan of the table the cheaper plan for a table that small.
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone():
            cursor.execute("DELETE FROM sqlite_stat1")
            cursor.execute("ANALYZE sqlite_schema")  # the planner reloads them: none
    products = [make_product(title=f"Oak board {n}") for n in range(3)]
    draft = make_product(title="Oak board draft", status="draft")
    ids = [p.pk for p in products]
    with CaptureQueriesContext(connection) as captured:
        ranged = documents.load_published_product_range(min(ids), draft.pk)
        listed = documents.load_published_products([*ids, draft.pk])
    assert [r.id for r in ranged] == ids and sorted(listed) == ids
    statements = [
        q["sql"] for q in captured.captured_queries if 'FROM "catalog_product" WHERE' in q["sql"]
    ]
    assert len(statements) == 2
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            plan = " ".join(str(row[-1]) for row in cursor.fetchall())
            assert "PRIMARY KEY" in plan, plan
            assert "product_status_published" not in plan, plan


def test_slow_facet_counts_are_reused_for_a_while_after_a_commit(monkeypatch):
    from tradepost.search import engine

    monkeypatch.setattr(engine, "SLOW_FACETS_SECONDS", 0.0)  # every count is "slow" here
    cn = make_company(country="CN")
    tw = make_company(country="TW")
    index(make_product(company=cn, title="Walnut serving tray"))
    assert _facet(search_products(query="walnut tray", language="en"), "country") == {"CN": 1}

    index(make_product(company=tw, title="Walnut tray with handles"))
    result = search_products(query="walnut tray", language="en")
    # The new listing is found at once; its count joins within STALE_FACETS_SECONDS.
    assert result.total == 2
    assert _facet(result, "country") == {"CN": 1}
    monkeypatch.setattr(engine, "STALE_FACETS_SECONDS", 0.0)
    result = search_products(query="walnut tray", language="en")
    assert _facet(result, "country") == {"CN": 1, "TW": 1}


@pytest.mark.parametrize(
    ("text", "chunks"),
    [
        ("Stainless steel flask", ["Stainless", "steel", "flask"]),
        ("500 ml bottle", ["500 ml", "bottle"]),  # a number keeps its unit
        ("5² mm and ① V", ["5² mm", "and", "① V"]),  # neither is a letter
        ("不锈钢 保温杯  500ml\u3000双层", ["不锈钢", "保温杯", "500ml", "双层"]),
        ("  lead and trail  ", ["  lead", "and", "trail"]),
    ],
)
def test_word_chunks_cut_only_after_a_letter(text, chunks):
    assert word_chunks(text) == chunks


@pytest.mark.parametrize(
    "text",
    [
        "5² mm 5 ² mm ① V Ⅻ V 3.5 mm 12 V 500 毫升 500\u00a0ml ＬＥＤ ｌｅｄ 米 色 x \u0301y",
        "Stainless steel flasks keep drinks hot. Stainless steel flasks keep drinks cold.",
        "不锈钢 保温杯 不鏽鋼 保溫杯 It's the colour's grey 鋼筆 and 钢笔",
    ],
)
def test_chunked_analysis_equals_whole_text_analysis(text):
    cache = PieceCache(max_entries=4)  # small: the memos are cleared along the way
    for _ in range(3):
        assert cache.fields(text) == analyze_fields(text)
        words, grams = analyze_fields(text)
        assert cache.fields(text, bigrams_only=True) == (words, [g for g in grams if len(g) == 2])

"""Percolation (docs/adr/0037): a listing published after a search was saved reaches it
once, when the saved search would show it among its results and clearly; filters apply;
a listing sharing one common word does not; an edited listing is not alerted twice; a
hidden one is not alerted."""

from __future__ import annotations

import pytest

from tests.factories.catalog import make_product, named_category
from tests.factories.companies import make_company, make_trader
from tests.factories.search import index
from tradepost.alerts.models import AlertMatch
from tradepost.alerts.percolation import forget_percolator, percolate
from tradepost.alerts.services import saved_search_create
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_percolator():
    forget_percolator()
    yield
    forget_percolator()


@pytest.fixture
def setting():
    category = named_category("Drinkware", "饮具", "飲具")
    supplier = make_company(legal_name="Ningbo Cups Co", country="CN", original_language="zh-hans")
    # The index must exist before the alert (the percolator follows the applied outbox).
    index(make_product(company=supplier, category=category, slug="old", title="旧款玻璃杯"))
    buyer, _company = make_trader(country="DE", slug="buyer-gmbh")
    return category, supplier, buyer


def publish(supplier, category, slug: str, title: str, **fields):
    product = make_product(company=supplier, category=category, slug=slug, title=title, **fields)
    index(product)
    return product


def matched(alert) -> list[int]:
    return sorted(AlertMatch.objects.filter(alert=alert).values_list("object_id", flat=True))


def test_a_new_listing_reaches_the_saved_search_across_languages_once(setting):
    category, supplier, buyer = setting
    alert = saved_search_create(actor=buyer, kind="product", query="vacuum flask", language="en")
    flask = publish(
        supplier, category, "flask", "304不锈钢真空保温杯 500ml", original_language="zh-hans"
    )
    other = publish(supplier, category, "bowl", "不锈钢饭盒 双层", original_language="zh-hans")

    report = percolate()

    assert report.matches == 1
    assert matched(alert) == [flask.pk]
    # Edited and indexed again: no second match.
    flask.title = "304不锈钢真空保温杯 750ml"
    flask.save()
    index(flask)
    assert percolate().matches == 0
    assert matched(alert) == [flask.pk]
    assert other.pk not in matched(alert)


def test_filters_apply_and_listings_from_before_the_alert_do_not_count(setting):
    category, supplier, buyer = setting
    old = publish(supplier, category, "older", "真空保温杯 老款")
    alert = saved_search_create(
        actor=buyer, kind="product", query="保温杯", params={"country": ["TW"]}, language="zh-hans"
    )
    taiwan = make_company(legal_name="Taipei Cups", country="TW", original_language="zh-hant")
    tw = publish(taiwan, category, "tw-flask", "真空保溫杯 不鏽鋼")
    cn = publish(supplier, category, "cn-flask", "真空保温杯 新款")
    percolate()
    assert matched(alert) == [tw.pk]
    assert old.pk not in matched(alert) and cn.pk not in matched(alert)


def test_one_shared_common_word_is_not_a_clear_match(setting):
    category, supplier, buyer = setting
    for n in range(6):
        publish(supplier, category, f"steel-{n}", f"stainless steel item {n}")
    alert = saved_search_create(
        actor=buyer, kind="product", query="stainless steel vacuum flask thermos", language="en"
    )
    bolt = publish(supplier, category, "bolt", "stainless steel hex bolt")
    flask = publish(supplier, category, "flask2", "stainless steel vacuum flask thermos 1L")
    percolate()
    assert matched(alert) == [flask.pk]
    assert bolt.pk not in matched(alert)


def test_a_listing_hidden_before_percolation_is_not_matched(setting):
    category, supplier, buyer = setting
    alert = saved_search_create(actor=buyer, kind="product", query="保温杯", language="zh-hans")
    flask = publish(supplier, category, "hidden", "真空保温杯")
    flask.status = ProductStatus.DRAFT
    flask.save()
    index(flask)
    percolate()
    assert matched(alert) == []


def test_filters_only_alerts_get_everything_within_them_and_unusable_words_get_nothing(setting):
    category, supplier, buyer = setting
    everything_cn = saved_search_create(
        actor=buyer, kind="product", query="", params={"country": ["CN"]}, language="en"
    )
    nonsense = saved_search_create(actor=buyer, kind="product", query="x" * 150, language="en")
    taiwan = make_company(legal_name="Taipei Cups", country="TW", original_language="zh-hant")
    cn = publish(supplier, category, "cn-any", "陶瓷马克杯")
    tw = publish(taiwan, category, "tw-any", "陶瓷馬克杯")
    percolate()
    assert matched(everything_cn) == [cn.pk]
    assert tw.pk not in matched(everything_cn)
    assert matched(nonsense) == []


def test_a_hole_in_the_index_holds_back_only_its_own_row(setting):
    """An outbox id the index passed before its transaction committed (PostgreSQL assigns
    ids at insert) is a hole: the percolator passes it too, remembers it, and matches its
    listing once the index has applied it; the rows after it are not held back."""
    from dataclasses import replace

    from tradepost.search.index import read_state, write_state
    from tradepost.search.models import IndexOutbox

    category, supplier, buyer = setting
    alert = saved_search_create(actor=buyer, kind="product", query="保温杯", language="zh-hans")
    late = publish(supplier, category, "late", "真空保温杯 迟到")
    on_time = publish(supplier, category, "on-time", "保温杯 准时")
    late_row = IndexOutbox.objects.filter(kind="product", object_id=late.pk).latest("pk").pk
    state = read_state()
    write_state(replace(state, holes={late_row: 0.0}))

    percolate()
    assert matched(alert) == [on_time.pk]

    write_state(replace(read_state(), holes={}))  # the index applied it
    percolate()
    assert matched(alert) == sorted([late.pk, on_time.pk])

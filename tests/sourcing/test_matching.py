"""Matching requests: open requests ranked by the supplier's own products, across languages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories.catalog import make_category, make_product
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.catalog.models import ProductStatus
from tradepost.sourcing.matching import matching_requests
from tradepost.sourcing.models import BuyingRequest, RequestStatus

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_matching_terms")]


@pytest.fixture
def categories():
    root = make_category(name_en="Home", name_zh_hans="家居", name_zh_hant="家居")
    flasks = make_category(
        parent=root, name_en="Vacuum flasks", name_zh_hans="保温杯", name_zh_hant="保溫杯"
    )
    pens = make_category(parent=make_category(), name_en="Pens", name_zh_hans="笔")
    tools = make_category(parent=make_category(), name_en="Hand tools", name_zh_hans="手动工具")
    return {"flasks": flasks, "pens": pens, "tools": tools}


def _ids(matches):
    return [m.request.pk for m in matches]


def test_english_ballpoint_pens_match_a_chinese_catalogue_of_圆珠笔(categories):
    _user, supplier = make_trader()
    make_product(company=supplier, title="蓝色圆珠笔 0.5mm", category=categories["pens"])
    request = make_request(title="Ballpoint pens", category_id=categories["tools"].pk)
    matches = matching_requests(company=supplier, language="en")
    assert _ids(matches) == [request.pk]
    reason = matches[0].reasons[0]
    assert "蓝色圆珠笔 0.5mm" in reason
    assert "glossary" in reason and "圆珠笔" in reason


def test_vacuum_flask_matches_不锈钢保温杯_and_unrelated_supplier_ranks_below(categories):
    _user, supplier = make_trader()
    make_product(company=supplier, title="不锈钢保温杯", category=categories["flasks"])
    flask = make_request(title="Stainless steel vacuum flask", category_id=categories["flasks"].pk)
    hammer = make_request(
        title="Claw hammers", description="<p>Steel head</p>", category_id=categories["tools"].pk
    )
    matches = matching_requests(company=supplier, language="en")
    assert _ids(matches)[0] == flask.pk
    assert hammer.pk not in _ids(matches)
    reasons = matches[0].reasons
    assert any("不锈钢保温杯" in r and "glossary" in r for r in reasons)
    assert "same category: Vacuum flasks" in reasons

    # A hammer maker: the flask request ranks below its own trade, if it shows at all.
    _user, toolmaker = make_trader()
    make_product(company=toolmaker, title="Claw hammer 16 oz", category=categories["tools"])
    ranked = _ids(matching_requests(company=toolmaker, language="en"))
    assert ranked[0] == hammer.pk
    assert flask.pk not in ranked


def test_chinese_request_matches_english_catalogue_and_traditional_script(categories):
    _user, supplier = make_trader(country="US")
    make_product(company=supplier, title="Vacuum flask 500ml", category=categories["flasks"])
    request = make_request(title="不銹鋼保溫杯", category_id=categories["tools"].pk)
    matches = matching_requests(company=supplier, language="zh-hant")
    assert _ids(matches) == [request.pk]
    assert "Vacuum flask 500ml" in matches[0].reasons[0]


def test_reasons_name_the_category_in_the_asked_language(categories):
    _user, supplier = make_trader()
    make_product(company=supplier, title="不锈钢保温杯", category=categories["flasks"])
    make_request(title="Stainless steel vacuum flask", category_id=categories["flasks"].pk)
    for language, name in [("en", "Vacuum flasks"), ("zh-hans", "保温杯"), ("zh-hant", "保溫杯")]:
        reasons = matching_requests(company=supplier, language=language)[0].reasons
        assert len(reasons) == 2
        assert name in reasons[1]


def test_own_closed_expired_and_full_requests_are_left_out(categories):
    user, supplier = make_trader()
    make_product(company=supplier, title="不锈钢保温杯", category=categories["flasks"])
    fields = {"title": "Stainless steel vacuum flask", "category_id": categories["flasks"].pk}
    own = make_request(actor=user, **fields)
    closed = make_request(**fields)
    expired = make_request(**fields)
    full = make_request(**fields)
    awarded = make_request(**fields)
    kept = make_request(**fields)
    BuyingRequest.objects.filter(pk=closed.pk).update(status=RequestStatus.CLOSED)
    BuyingRequest.objects.filter(pk=awarded.pk).update(status=RequestStatus.AWARDED)
    BuyingRequest.objects.filter(pk=expired.pk).update(deadline=timezone.now() - timedelta(hours=1))
    make_quotation(full)
    BuyingRequest.objects.filter(pk=full.pk).update(quote_limit=1)
    ids = _ids(matching_requests(company=supplier, language="en"))
    assert ids == [kept.pk]
    assert own.pk not in ids


def test_only_published_products_count(categories):
    _user, supplier = make_trader()
    make_product(
        company=supplier,
        title="不锈钢保温杯",
        category=categories["flasks"],
        status=ProductStatus.DRAFT,
    )
    make_request(title="Stainless steel vacuum flask", category_id=categories["flasks"].pk)
    assert matching_requests(company=supplier, language="en") == []


def test_title_weighs_more_than_description_and_category_adds(categories):
    _user, supplier = make_trader()
    make_product(company=supplier, title="Ballpoint pen", category=categories["pens"])
    in_title = make_request(title="Ballpoint pen", category_id=categories["tools"].pk)
    in_description = make_request(
        title="Office supplies",
        description="<p>ballpoint pen</p>",
        category_id=categories["tools"].pk,
    )
    with_category = make_request(title="Ballpoint pen", category_id=categories["pens"].pk)
    assert _ids(matching_requests(company=supplier, language="en")) == [
        with_category.pk,
        in_title.pk,
        in_description.pk,
    ]


def test_analysis_is_cached_per_request_and_follows_edits(categories, django_assert_num_queries):
    _user, supplier = make_trader()
    make_product(company=supplier, title="不锈钢保温杯", category=categories["flasks"])
    request = make_request(title="Claw hammers", category_id=categories["tools"].pk)
    assert matching_requests(company=supplier, language="en") == []
    # Second call: products, translations, requests (no re-read of titles).
    with django_assert_num_queries(3):
        assert matching_requests(company=supplier, language="en") == []
    BuyingRequest.objects.filter(pk=request.pk).update(
        title="Vacuum flask", updated_at=timezone.now() + timedelta(seconds=1)
    )
    assert _ids(matching_requests(company=supplier, language="en")) == [request.pk]


def test_query_count_is_bounded(categories, django_assert_max_num_queries):
    _user, supplier = make_trader()
    for index in range(5):
        make_product(company=supplier, title=f"不锈钢保温杯 {index}", category=categories["flasks"])
    for _ in range(8):
        make_request(title="Stainless steel vacuum flask", category_id=categories["flasks"].pk)
    with django_assert_max_num_queries(5):
        matches = matching_requests(company=supplier, language="en")
        assert len(matches) == 8
        assert all(m.request.buyer.country for m in matches)


def test_supplier_without_products_gets_nothing(categories):
    _user, supplier = make_trader()
    make_request(title="Stainless steel vacuum flask")
    assert matching_requests(company=supplier, language="en") == []


def test_limit(categories):
    _user, supplier = make_trader()
    make_product(company=supplier, title="Ballpoint pen", category=categories["pens"])
    for _ in range(4):
        make_request(title="Ballpoint pen", category_id=categories["pens"].pk)
    assert len(matching_requests(company=supplier, language="en", limit=2)) == 2
    assert len(matching_requests(company=supplier, language="en", limit=-5)) == 1

"""Open, closed and cross-lingual buying requests, indexed, for the request search tests."""

from __future__ import annotations

from tests.factories import make_category
from tests.sourcing.factories import make_request, make_trader
from tradepost.search.indexer import apply_outbox
from tradepost.sourcing import services


def make_board() -> dict:
    drinkware = make_category(name_en="Drinkware", name_zh_hans="饮具", name_zh_hant="飲具")
    flasks = make_category(
        parent=drinkware, name_en="Vacuum flasks", name_zh_hans="保温杯", name_zh_hant="保溫杯"
    )
    stationery = make_category(name_en="Stationery", name_zh_hans="文具", name_zh_hant="文具")
    pens = make_category(parent=stationery, name_en="Pens", name_zh_hans="笔", name_zh_hant="筆")
    buyer, _company = make_trader(country="DE", business_types=["wholesaler"])
    chinese = make_request(
        actor=buyer,
        title="求购不锈钢保温杯",
        description="双层真空，500毫升",
        category_id=flasks.pk,
        quantity="3000",
        destination_country="DE",
        original_language="zh-hans",
    )
    pens_request = make_request(
        actor=buyer,
        title="Ballpoint pens with company logo",
        description="Blue ink, plastic barrel",
        category_id=pens.pk,
        quantity="20000",
        destination_country="US",
    )
    closed = make_request(
        actor=buyer, title="Stainless steel vacuum flask, closed", category_id=flasks.pk
    )
    services.request_close(actor=buyer, buying_request=closed)
    apply_outbox()
    return {
        "buyer": buyer,
        "flasks": flasks,
        "drinkware": drinkware,
        "chinese": chinese,
        "pens": pens_request,
        "closed": closed,
    }

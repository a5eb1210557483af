"""The search index in tests: outbox rows recorded the way services record them, the shared
product catalogue of the search tests and the board of buying requests."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction

from tests.factories.catalog import make_product, named_category
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_request
from tradepost.catalog.models import Category, Product, ProductStatus
from tradepost.companies.models import Company
from tradepost.search.indexer import ApplyReport, apply_outbox
from tradepost.search.outbox import record_change
from tradepost.sourcing import services as sourcing_services


def record(*objects: Product | Company | Category) -> None:
    """Add outbox rows for these objects, as the write services do."""
    with transaction.atomic():
        for obj in objects:
            if isinstance(obj, Product):
                record_change(kind="product", object_id=obj.pk)
            elif isinstance(obj, Company):
                record_change(kind="company", object_id=obj.pk)
            else:
                record_change(kind="category", object_id=obj.pk)


def index(*objects: Product | Company | Category) -> ApplyReport:
    """Record and apply at once (the first call builds the index from the database)."""
    record(*objects)
    return apply_outbox()


@dataclass
class Catalogue:
    drinkware: Category
    flasks: Category
    mugs: Category
    stationery: Category
    pens: Category
    ningbo: Company  # CN, verified
    taipei: Company  # TW
    ohio: Company  # US
    flask_cn: Product  # simplified Chinese, verified CN supplier, CNY price
    flask_tw: Product  # traditional Chinese, TW supplier, TWD price
    flask_en: Product  # English, US supplier, USD
    mug_vn: Product  # English, VN supplier
    pen_en: Product  # English ballpoint pen, CN supplier, no price
    pen_cn: Product  # 钢笔 (fountain pen) in simplified Chinese

    @property
    def products(self) -> list[Product]:
        return [value for value in vars(self).values() if isinstance(value, Product)]


#: The fields of the catalogue's listings, by name.
LISTINGS = {
    "flask_cn": {
        "title": "不锈钢保温杯 500ml 双层真空",
        "description": "食品级304不锈钢，保温12小时。",
        "original_language": "zh-hans",
        "price_min": Decimal("18"),  # CNY: about US$2.5
        "price_max": Decimal("25"),
        "currency": "CNY",
        "incoterms": ["FOB", "EXW"],
        "moq": Decimal("500"),
        "lead_time_days": 15,
    },
    "flask_tw": {
        "title": "不鏽鋼保溫瓶 1000ml",
        "original_language": "zh-hant",
        "price_min": Decimal("300"),  # TWD: about US$10
        "price_max": Decimal("450"),
        "currency": "TWD",
        "incoterms": ["FOB"],
        "moq": Decimal("1000"),
        "lead_time_days": 30,
        "port_of_loading": "Keelung",
    },
    "flask_en": {
        "title": "Stainless steel vacuum flask with handle",
        "description": "Keeps drinks hot for 12 hours.",
        "original_language": "en",
        "price_min": Decimal("45"),
        "price_max": Decimal("60"),
        "currency": "USD",
        "incoterms": ["DDP"],
        "moq": Decimal("50"),
        "lead_time_days": 7,
    },
    "mug_vn": {
        "title": "Ceramic coffee mug",
        "description": "Glazed stoneware mug, dishwasher safe.",
        "original_language": "en",
        "price_min": Decimal("0.80"),
        "price_max": Decimal("1.20"),
        "currency": "USD",
        "incoterms": ["FOB", "CIF"],
        "moq": Decimal("2000"),
        "lead_time_days": 45,
    },
    "pen_en": {
        "title": "Plastic ballpoint pen, blue ink",
        "original_language": "en",
        "price_min": None,
        "price_max": None,
        "moq": Decimal("10000"),
    },
    "pen_cn": {
        "title": "金属钢笔 礼品套装",
        "original_language": "zh-hans",
        "price_min": Decimal("5"),
        "price_max": Decimal("8"),
        "currency": "USD",
        "moq": Decimal("100"),
    },
}


def build_catalogue() -> Catalogue:
    """Two category trees, five suppliers in four countries, six published listings in three
    languages and scripts (and a draft), indexed."""
    drinkware = named_category("Drinkware", "饮具", "飲具")
    flasks = named_category("Vacuum flasks", "保温瓶", "保溫瓶", drinkware)
    mugs = named_category("Mugs", "马克杯", "馬克杯", drinkware)
    stationery = named_category("Stationery", "文具", "文具")
    pens = named_category("Pens", "笔", "筆", stationery)
    ningbo = make_company(
        country="CN",
        legal_name="宁波恒达日用品有限公司",
        english_name="Ningbo Hengda Housewares",
        slug="ningbo-hengda",
        is_verified=True,
    )
    taipei = make_company(country="TW", legal_name="台北精品股份有限公司", slug="taipei-fine")
    ohio = make_company(country="US", legal_name="Ohio Drinkware Inc.", slug="ohio-drinkware")
    hanoi = make_company(country="VN", legal_name="Hanoi Ceramics JSC", slug="hanoi-ceramics")
    yiwu = make_company(country="CN", legal_name="义乌文具厂", slug="yiwu-stationery")
    where = {
        "flask_cn": (ningbo, flasks),
        "flask_tw": (taipei, flasks),
        "flask_en": (ohio, flasks),
        "mug_vn": (hanoi, mugs),
        "pen_en": (yiwu, pens),
        "pen_cn": (yiwu, pens),
    }
    listings = {
        name: make_product(company=company, category=category, **LISTINGS[name])
        for name, (company, category) in where.items()
    }
    make_product(title="Stainless steel vacuum flask draft", status=ProductStatus.DRAFT)
    apply_outbox()
    return Catalogue(drinkware, flasks, mugs, stationery, pens, ningbo, taipei, ohio, **listings)


def make_board() -> dict:
    """Open, closed and cross-lingual buying requests, indexed."""
    drinkware = named_category("Drinkware", "饮具", "飲具")
    flasks = named_category("Vacuum flasks", "保温杯", "保溫杯", drinkware)
    stationery = named_category("Stationery", "文具", "文具")
    pens = named_category("Pens", "笔", "筆", stationery)
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
    sourcing_services.request_close(actor=buyer, buying_request=closed)
    apply_outbox()
    return {
        "buyer": buyer,
        "flasks": flasks,
        "drinkware": drinkware,
        "chinese": chinese,
        "pens": pens_request,
        "closed": closed,
    }

"""The main pages of the site as the e2e journeys reach them, on a small market whose every piece
of user content is Chinese (#13's measurements: axe-core, and no English interface string on a
Chinese page). `build_market` makes the data; `main_pages` lists who opens which page."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tests.e2e.people import log_in
from tests.factories.accounts import make_user
from tests.factories.catalog import add_image, make_product
from tests.factories.companies import make_company
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.models import User
from tradepost.catalog.models import Category
from tradepost.messaging.services import inquiry_send
from tradepost.search import indexer

LANGUAGES = ("en", "zh-hans", "zh-hant")


@dataclass(frozen=True)
class MainPage:
    name: str
    path: str  # without the language prefix
    who: str  # "visitor", or a key of `Market.people`


@dataclass
class Market:
    people: dict[str, User]
    pages: list[MainPage]


def build_market() -> Market:
    """A Chinese supplier with two listings, a Taiwanese one, a buyer whose request has both
    quotations and a second request nobody has quoted yet, a conversation, and a newcomer
    without a company. Codes (FOB, LFGB, currencies) are the only Latin user content."""
    flasks = Category.objects.get(slug="home-garden-vacuum-flasks")
    supplier = make_user(email="chen@mingda.example", full_name="陈明")
    mingda = make_company(
        owner=supplier,
        slug="mingda",
        country="CN",
        legal_name="宁波明达保温制品有限公司",
        original_language="zh-hans",
    )
    product = make_product(
        company=mingda,
        category=flasks,
        slug="bao-wen-bei",
        title="不锈钢真空保温杯 500ml",
        original_language="zh-hans",
        description="<p>304不锈钢内胆，双层真空，保温12小时。</p>",
        price_min=Decimal("18"),
        price_max=Decimal("25"),
        currency="CNY",
        incoterms=["FOB"],
    )
    add_image(product)
    make_product(
        company=mingda,
        category=flasks,
        slug="bao-wen-hu",
        title="不锈钢保温壶 1000ml",
        original_language="zh-hans",
        price_min=Decimal("30"),
        price_max=Decimal("40"),
        currency="CNY",
    )
    taiwan = make_user(email="lin@taichung.example", full_name="林志明")
    make_company(
        owner=taiwan,
        slug="taichung",
        country="TW",
        legal_name="台中保溫器材股份有限公司",
        original_language="zh-hant",
    )
    buyer = make_user(email="wang@shanghai-import.example", full_name="王芳")
    make_company(
        owner=buyer,
        slug="shanghai-import",
        country="CN",
        legal_name="上海进口贸易有限公司",
        original_language="zh-hans",
        business_types=["trading_company"],
    )
    newcomer = make_user(email="li@example.com", full_name="李娜")
    indexer.apply_outbox()

    chinese_request = {
        "original_language": "zh-hans",
        "category_id": flasks.pk,
        "description": "<p>双层真空，304不锈钢，保温12小时。</p>",
        "destination_port": "上海",
    }
    buying_request = make_request(actor=buyer, title="不锈钢保温杯 5000个", **chinese_request)
    chinese_quote = {"named_place": "宁波", "message": "我们每天生产这种产品。"}
    quotation = make_quotation(
        buying_request,
        actor=supplier,
        unit_price="21",
        currency="CNY",
        price_tiers=[{"min_quantity": "5000", "unit_price": "19.5"}],
        **chinese_quote,
    )
    make_quotation(buying_request, actor=taiwan, unit_price="3.1", **chinese_quote)
    unquoted = make_request(actor=buyer, title="玻璃水杯 2000个", **chinese_request)
    conversation = inquiry_send(
        actor=buyer, product=product, quantity="1000", unit="pieces", message="1000个多少钱？"
    )
    indexer.apply_outbox()

    request_id = buying_request.pk
    pages = [
        MainPage("home", "/", "visitor"),
        MainPage("search", "/search/?q=保温杯", "visitor"),
        MainPage("search-companies", "/search/?q=保温&tab=companies", "visitor"),
        MainPage("product", f"/products/{product.pk}-{product.slug}/", "visitor"),
        MainPage("company", f"/companies/{mingda.slug}/", "visitor"),
        MainPage("categories", "/categories/", "visitor"),
        MainPage("category", f"/categories/{flasks.slug}/", "visitor"),
        MainPage("request-board", "/requests/", "visitor"),
        MainPage("request", f"/requests/{request_id}/", "visitor"),
        MainPage("login", "/accounts/login/", "visitor"),
        MainPage("signup", "/accounts/signup/", "visitor"),
        MainPage("company-create", "/dashboard/company/create/", "newcomer"),
        MainPage("compare", f"/requests/{request_id}/compare/", "buyer"),
        MainPage("award", f"/requests/quotations/{quotation.pk}/award/", "buyer"),
        MainPage("request-create", "/requests/create/", "buyer"),
        MainPage("my-requests", "/requests/mine/", "buyer"),
        MainPage("messages", "/messages/", "buyer"),
        MainPage("conversation", f"/messages/{conversation.pk}/", "buyer"),
        MainPage("notifications", "/messages/notifications/", "supplier"),
        MainPage("dashboard", "/accounts/dashboard/", "supplier"),
        MainPage("my-products", "/dashboard/products/", "supplier"),
        MainPage("product-create", "/dashboard/products/create/", "supplier"),
        MainPage("product-update", f"/dashboard/products/{product.pk}/update/", "supplier"),
        MainPage("matching", "/requests/matching/", "supplier"),
        MainPage("quote", f"/requests/{unquoted.pk}/quote/", "supplier"),
        MainPage("my-quotations", "/requests/quotations/", "supplier"),
        MainPage("supplier-messages", f"/messages/{conversation.pk}/", "supplier"),
    ]
    people = {"supplier": supplier, "buyer": buyer, "newcomer": newcomer}
    return Market(people=people, pages=pages)


def visit_all(browser, base: str, market: Market, language: str):
    """Opens every main page in `language`, each person in their own context; yields
    (page name, Playwright page) once each page has loaded."""
    by_person: dict[str, list[MainPage]] = {}
    for main_page in market.pages:
        by_person.setdefault(main_page.who, []).append(main_page)
    for who, pages in by_person.items():
        context = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 800})
        context.set_default_timeout(15_000)
        try:
            page = context.new_page()
            if who != "visitor":
                log_in(page, base, market.people[who])
            for main_page in pages:
                response = page.goto(f"{base}/{language}{main_page.path}")
                assert response is not None and response.ok, (main_page, response)
                yield f"{language}{main_page.path} ({main_page.name}, {who})", page
        finally:
            context.close()

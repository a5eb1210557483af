"""The main pages of the site as the e2e journeys reach them, on a small market whose every piece
of user content is Chinese (#13's measurements: axe-core, no English interface string on a
Chinese page, nothing wider than the screen). `build_market` makes the data and lists who opens
which page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from tests.e2e.conftest import E2E_TIMEOUT_MS
from tests.e2e.page_checks import load_axe_in
from tests.e2e.people import log_in
from tests.factories import imports, membership, screening, trust, webhooks
from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import (
    add_image,
    flask_category,
    make_flask,
    product_fields,
)
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.models import User
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Category, Product, ProductStatus
from tradepost.companies.models import Company
from tradepost.imports import services as import_services
from tradepost.insights.models import ProductViewDay, SearchWordDay
from tradepost.messaging.services import inquiry_send
from tradepost.reviews import services as review_services
from tradepost.search import indexer
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.models import Quotation
from tradepost.trust import services as trust_services
from tradepost.webhooks import services as webhook_services

LANGUAGES = ("en", "zh-hans", "zh-hant")
WIDE = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}


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
    without a company. Codes (FOB, LFGB, currencies), web addresses and file names are the
    only Latin user content.

    Then what the newer pages show: the Chinese supplier has a Gold invoice waiting for its
    bank transfer, verification documents waiting for an operator, a checked catalogue import,
    a webhook endpoint with a test delivery, a week of views and search words, a review (and
    its reply) from the Taiwanese company and an award from the buyer not reviewed yet; the
    Taiwanese company pays for Gold and has a listing held by a banned term; the buyer
    reported a listing; a third company is suspended; and an operator sees it all."""
    flasks = flask_category()
    supplier = make_user(email="chen@mingda.example", full_name="陈明")
    mingda = make_company(
        owner=supplier,
        slug="mingda",
        country="CN",
        legal_name="宁波明达保温制品有限公司",
        original_language="zh-hans",
    )
    product = make_flask(
        mingda,
        "不锈钢真空保温杯 500ml",
        "zh-hans",
        ("18", "25"),
        slug="bao-wen-bei",
        description="<p>304不锈钢内胆，双层真空，保温12小时。</p>",
        currency="CNY",
        incoterms=["FOB"],
    )
    add_image(product)
    kettle = make_flask(
        mingda, "不锈钢保温壶 1000ml", "zh-hans", ("30", "40"), slug="bao-wen-hu", currency="CNY"
    )
    taiwan = make_user(email="lin@taichung.example", full_name="林志明")
    taichung = make_company(
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
    operator = make_operator(email="ops@tradepost.example", full_name="周运营")
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

    # Awards: the buyer's is not reviewed yet (its form); the Taiwanese company's is, and the
    # supplier answered.
    awarded = _award(buyer, supplier, "不锈钢保温壶 3000个", chinese_request, chinese_quote)
    reviewed = _award(taiwan, supplier, "保溫杯 1000個", chinese_request, chinese_quote)
    review = review_services.review_create(
        actor=taiwan, quotation=reviewed, rating=4, text="品質很好，交貨晚了兩天。"
    )
    review_services.review_reply(actor=supplier, review=review, reply="谢谢，下次我们准时发货。")

    # Membership: Gold bought by transfer (the supplier's invoice waits for the money; the
    # Taiwanese company's was confirmed).
    invoice = membership.subscribe(mingda, membership.gold(), actor=supplier, paid=False).invoice
    membership.subscribe(taichung, membership.gold(), actor=taiwan)

    # Trust: documents waiting for an operator, a report, a suspended company.
    trust.submit_verification(supplier, business_licence=[trust.pdf_upload("营业执照.pdf")])
    trust.report(buyer, "product", kettle, reason="counterfeit", note="图片是别家的。")
    _owner, yiwu = make_trader(legal_name="义乌小商品有限公司", original_language="zh-hans")
    trust_services.moderation_apply(
        actor=operator, target="company", target_id=yiwu.pk, action="suspend", reason="spam"
    )

    # Screening: a banned term and a listing it holds.
    screening.ban("象牙", actor=operator, note="濒危物种")
    _held(taiwan, taichung, flasks)

    # The catalogue import, the webhooks and the supplier desk.
    job = import_services.import_upload(
        actor=supplier, company=mingda, catalogue=imports.upload(_catalogue()), language="zh-hans"
    )
    endpoint, _secret = webhooks.add_endpoint(
        supplier, "https://erp.mingda.example/hooks", description="企业资源计划系统"
    )
    webhook_services.webhook_endpoint_send_test(actor=supplier, endpoint=endpoint)
    today = timezone.localdate()
    for days_ago in range(7):
        day = today - timedelta(days=days_ago)
        ProductViewDay.objects.create(product=product, company=mingda, day=day, count=12 - days_ago)
        SearchWordDay.objects.create(company=mingda, word="保温杯", day=day, count=5)
    indexer.apply_outbox()

    request_id = buying_request.pk
    pages = [
        MainPage("home", "/", "visitor"),
        MainPage("search", "/search/?q=保温杯", "visitor"),
        MainPage("search-companies", "/search/?q=保温&tab=companies", "visitor"),
        MainPage("product", f"/products/{product.pk}-{product.slug}/", "visitor"),
        MainPage("company", f"/companies/{mingda.slug}/", "visitor"),
        MainPage("company-reviews", f"/companies/{mingda.slug}/reviews/", "visitor"),
        MainPage("categories", "/categories/", "visitor"),
        MainPage("category", f"/categories/{flasks.slug}/", "visitor"),
        MainPage("request-board", "/requests/", "visitor"),
        MainPage("request", f"/requests/{request_id}/", "visitor"),
        MainPage("plans", "/membership/", "visitor"),
        MainPage("login", "/accounts/login/", "visitor"),
        MainPage("signup", "/accounts/signup/", "visitor"),
        MainPage("company-create", "/dashboard/company/create/", "newcomer"),
        MainPage("compare", f"/requests/{request_id}/compare/", "buyer"),
        MainPage("award", f"/requests/quotations/{quotation.pk}/award/", "buyer"),
        MainPage("review-create", f"/requests/quotations/{awarded.pk}/review/", "buyer"),
        MainPage("request-create", "/requests/create/", "buyer"),
        MainPage("my-requests", "/requests/mine/", "buyer"),
        MainPage("messages", "/messages/", "buyer"),
        MainPage("conversation", f"/messages/{conversation.pk}/", "buyer"),
        MainPage(
            "report-create",
            f"/dashboard/reports/new/?target=product&target_id={product.pk}",
            "buyer",
        ),
        MainPage("notifications", "/messages/notifications/", "supplier"),
        MainPage("dashboard", "/accounts/dashboard/", "supplier"),
        MainPage("supplier-desk", "/dashboard/insights/", "supplier"),
        MainPage("my-products", "/dashboard/products/", "supplier"),
        MainPage("product-create", "/dashboard/products/create/", "supplier"),
        MainPage("product-update", f"/dashboard/products/{product.pk}/update/", "supplier"),
        MainPage("matching", "/requests/matching/", "supplier"),
        MainPage("quote", f"/requests/{unquoted.pk}/quote/", "supplier"),
        MainPage("my-quotations", "/requests/quotations/", "supplier"),
        MainPage("supplier-messages", f"/messages/{conversation.pk}/", "supplier"),
        MainPage("membership", "/dashboard/membership/", "supplier"),
        MainPage("billing", "/dashboard/membership/billing/", "supplier"),
        MainPage("invoice", f"/dashboard/membership/invoices/{invoice.pk}/", "supplier"),
        MainPage("verification", "/dashboard/company/verification/", "supplier"),
        MainPage("imports", "/dashboard/imports/", "supplier"),
        MainPage("import", f"/dashboard/imports/{job.pk}/", "supplier"),
        MainPage("webhooks", "/dashboard/webhooks/", "supplier"),
        MainPage("webhook", f"/dashboard/webhooks/{endpoint.pk}/", "supplier"),
        MainPage("operator-desk", "/dashboard/operator/", "operator"),
        MainPage("verification-queue", "/dashboard/operator/verification/", "operator"),
        MainPage("reports-queue", "/dashboard/operator/reports/", "operator"),
        MainPage("payments", "/dashboard/operator/payments/", "operator"),
        MainPage("membership-analytics", "/dashboard/operator/membership/", "operator"),
        MainPage("banned-terms", "/dashboard/operator/banned-terms/", "operator"),
        MainPage("held-listings", "/dashboard/operator/held-listings/", "operator"),
    ]
    people = {"supplier": supplier, "buyer": buyer, "newcomer": newcomer, "operator": operator}
    return Market(people=people, pages=pages)


def _award(buyer: User, supplier: User, title: str, request: dict, quote: dict) -> Quotation:
    """A request of `buyer` that `supplier` quoted and `buyer` awarded: the awarded quotation."""
    buying_request = make_request(actor=buyer, title=title, **request)
    quotation = make_quotation(
        buying_request, actor=supplier, unit_price="24", currency="CNY", **quote
    )
    return sourcing_services.quotation_award(actor=buyer, quotation=quotation)


def _held(owner: User, company: Company, category: Category) -> Product:
    """A listing of `company` that screening held for the banned term in its title."""
    values = product_fields(
        title="天然象牙雕刻擺件",
        original_language="zh-hant",
        description="<p>手工雕刻。</p>",
        category_id=category.pk,
        keywords="雕刻, 擺件",
        attributes=[{"name": "材質", "value": "象牙"}],
        port_of_loading="台中",
        origin_country="TW",
    )
    held = catalog_services.product_create(actor=owner, company=company, **values)
    held = catalog_services.product_publish(actor=owner, product=held)
    assert held.status == ProductStatus.HELD
    return held


def _catalogue() -> bytes:
    """A small catalogue with Chinese headers: one good row, one without its category."""
    rows = [
        {**imports.BASE_ROW, "sku": "BW-1", "title": "不锈钢旅行杯 350ml"},
        {**imports.BASE_ROW, "sku": "BW-2", "title": "儿童保温水壶 600ml", "category": ""},
    ]
    for row in rows:
        row.update(
            original_language="zh-hans",
            description="<p>双层真空。</p>",
            keywords="保温杯",
            attributes="材质: 304不锈钢",
            port_of_loading="宁波",
        )
    return imports.csv_bytes(imports.table(rows, language="zh-hans"))


def visit_all(browser, base: str, market: Market, language: str):
    """Opens every main page in `language` on a 1366×800 screen, each person in their own
    context; yields (page name, Playwright page) once each page has loaded. The page is the
    caller's until the next one is opened (which restores the wide screen first)."""
    by_person: dict[str, list[MainPage]] = {}
    for main_page in market.pages:
        by_person.setdefault(main_page.who, []).append(main_page)
    for who, pages in by_person.items():
        context = browser.new_context(locale="en-US", viewport=WIDE)
        load_axe_in(context)
        context.set_default_timeout(E2E_TIMEOUT_MS)
        try:
            page = context.new_page()
            if who != "visitor":
                log_in(page, base, market.people[who])
            for main_page in pages:
                page.set_viewport_size(WIDE)
                response = page.goto(f"{base}/{language}{main_page.path}")
                assert response is not None and response.ok, (main_page, response)
                yield f"{language}{main_page.path} ({main_page.name}, {who})", page
        finally:
            context.close()


#: What the site's script decides from the screen's width when a page loads (site.js: the
#: search filters, `details[data-open-wide]`, open from 900 px), decided again after the
#: screen was resized; then animation frames until the page fits the screen, or until its
#: width has stayed the same for ten frames (the charts, Chart.js, follow their boxes' new
#: size a few frames later, later still on a busy machine).
AS_LOADED_AT_THIS_WIDTH = """() => new Promise((done) => {
  const wide = window.matchMedia('(min-width: 900px)').matches;
  document.querySelectorAll('details[data-open-wide]').forEach((details) => {
    details.open = wide;
  });
  let last = -1, same = 0, frames = 0;
  const settle = () => {
    const width = document.documentElement.scrollWidth;
    same = width === last ? same + 1 : 0;
    last = width;
    frames += 1;
    if (width <= window.innerWidth || same >= 10 || frames >= 300) done();
    else requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
})"""


def resize(page, viewport: dict) -> None:
    """The loaded page on a screen of `viewport`'s size, laid out as if it had loaded there:
    one visit serves the checks at both widths."""
    page.set_viewport_size(viewport)
    page.evaluate(AS_LOADED_AT_THIS_WIDTH)

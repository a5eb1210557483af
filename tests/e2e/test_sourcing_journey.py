"""A buyer posts a request in English; a Chinese supplier whose product is 不锈钢保温杯 finds it
under "Matching requests" in the Simplified-Chinese interface and quotes in CNY; a second supplier
quotes in USD; the buyer compares both in USD, asks a question, gets a reply and awards one; both
suppliers see the outcome."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.e2e.people import fill_quote, log_in
from tests.factories.accounts import make_user
from tests.factories.catalog import flask_category, make_flask
from tests.factories.companies import make_company
from tradepost.messaging.models import Conversation
from tradepost.money.models import ExchangeRate
from tradepost.notify.models import Notification, NotificationKind
from tradepost.sourcing.models import (
    BuyingRequest,
    Quotation,
    QuotationStatus,
    RequestStatus,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REQUEST_TITLE = "Stainless steel vacuum flasks, 500 ml"
RATES_AS_OF = date(2026, 11, 30)


def _quote(page, **quote: str) -> None:
    fill_quote(page, **quote)
    page.click("main form.stacked button[type=submit]")
    page.wait_for_url("**/requests/quotations/")


def _row(page, supplier_name: str):
    return page.locator("table.compare-table tbody tr").filter(has_text=supplier_name)


def test_buyer_compares_quotes_from_a_chinese_and_a_us_supplier_asks_and_awards(
    live_server, open_page, reference_data
):
    base = live_server.url
    flasks = flask_category()
    ExchangeRate.objects.update_or_create(
        currency="USD", defaults={"rate_to_usd": Decimal("1"), "as_of": RATES_AS_OF}
    )
    ExchangeRate.objects.update_or_create(
        currency="CNY", defaults={"rate_to_usd": Decimal("0.14"), "as_of": RATES_AS_OF}
    )

    buyer = make_user(email="anna@rotterdam-imports.example", full_name="Anna de Vries")
    make_company(owner=buyer, country="NL", legal_name="Rotterdam Imports BV")

    chen = make_user(
        email="chen@mingda-flask.example", full_name="陈明", preferred_language="zh-hans"
    )
    mingda = make_company(owner=chen, country="CN", legal_name="宁波明达保温制品有限公司")
    make_flask(
        mingda,
        "不锈钢保温杯",
        "zh-hans",
        ("18", "25"),
        slug="bao-wen-bei",
        description="304不锈钢内胆，双层真空，保温12小时。",
        currency="CNY",
    )

    mike = make_user(email="mike@ohio-drinkware.example", full_name="Mike Miller")
    ohio = make_company(owner=mike, country="US", legal_name="Ohio Drinkware Inc.")
    make_flask(
        ohio, "Stainless steel vacuum flask with handle, 750 ml", "en", slug="vacuum-flask-750"
    )

    # The buyer posts the request in English.
    buyer_page = open_page(locale="en-US")
    log_in(buyer_page, base, buyer)
    buyer_page.goto(f"{base}/en/requests/create/")
    buyer_page.fill("#id_title", REQUEST_TITLE)
    buyer_page.select_option("#id_original_language", "en")
    buyer_page.select_option("#id_category_id", str(flasks.pk))
    buyer_page.fill(
        "#id_description", "Double-wall stainless steel 304, keeps drinks hot for 12 hours."
    )
    buyer_page.fill("#id_quantity", "5000")
    buyer_page.select_option("#id_unit", "pieces")
    buyer_page.select_option("#id_destination_country", "NL")
    buyer_page.fill("#id_destination_port", "Rotterdam")
    buyer_page.select_option("#id_preferred_incoterm", "FOB")
    buyer_page.fill("#id_deadline", (timezone.localdate() + timedelta(days=14)).isoformat())
    buyer_page.click("form[action$='/requests/create/'] button[type=submit]")
    buyer_page.wait_for_url(re.compile(r".*/en/requests/\d+/$"))
    buying_request = BuyingRequest.objects.get(title=REQUEST_TITLE)
    assert buying_request.status == RequestStatus.OPEN
    assert buyer_page.locator("h1").inner_text() == REQUEST_TITLE

    # The Chinese supplier finds it under "Matching requests" in Simplified Chinese, with the
    # reason (its own product), and quotes in yuan.
    chen_page = open_page(locale="zh-CN")
    log_in(chen_page, base, chen, "zh-hans")
    chen_page.goto(f"{base}/zh-hans/requests/matching/")
    assert chen_page.locator("html").get_attribute("lang") == "zh-hans"
    card = chen_page.locator("li.request-card").filter(has_text=REQUEST_TITLE)
    assert card.count() == 1
    reasons = card.locator("ul.match-reasons").inner_text()
    assert "不锈钢保温杯" in reasons, reasons
    card.locator(f"a[href$='/zh-hans/requests/{buying_request.pk}/quote/']").click()
    chen_page.wait_for_url(f"**/zh-hans/requests/{buying_request.pk}/quote/")
    _quote(chen_page, unit_price="21", currency="CNY", moq="1000", lead_time="25", place="Ningbo")
    chen_quote = Quotation.objects.get(request=buying_request, supplier=mingda)
    assert (chen_quote.unit_price, chen_quote.currency) == (Decimal("21"), "CNY")
    assert "CN¥21.00" in chen_page.locator("table.data").inner_text()

    # The second supplier quotes in dollars from the request page.
    mike_page = open_page(locale="en-US")
    log_in(mike_page, base, mike)
    mike_page.goto(f"{base}/en/requests/{buying_request.pk}/")
    mike_page.click(f"a[href$='/en/requests/{buying_request.pk}/quote/']")
    mike_page.wait_for_url(f"**/en/requests/{buying_request.pk}/quote/")
    _quote(mike_page, unit_price="3.10", currency="USD", moq="500", lead_time="40", place="Oakland")
    mike_quote = Quotation.objects.get(request=buying_request, supplier=ohio)
    assert (mike_quote.unit_price, mike_quote.currency) == (Decimal("3.10"), "USD")

    # The buyer compares both in US dollars, with the date of the rates used.
    buyer_page.goto(f"{base}/en/requests/{buying_request.pk}/")
    buyer_page.click(f"a[href$='/en/requests/{buying_request.pk}/compare/']")
    buyer_page.wait_for_url(f"**/en/requests/{buying_request.pk}/compare/")
    buyer_page.select_option("select[name=currency]", "USD")
    buyer_page.select_option("select[name=sort]", "price")
    buyer_page.click("main form[method=get] button[type=submit]")
    buyer_page.wait_for_url("**/compare/?currency=USD&sort=price")
    assert "Unit price (USD)" in buyer_page.locator("table.compare-table thead").inner_text()
    rate_date = f"{RATES_AS_OF.day} {RATES_AS_OF:%b} {RATES_AS_OF.year}"  # "30 Nov 2026"
    assert f"exchange rates of {rate_date}" in buyer_page.inner_text("main")
    chen_row, mike_row = (
        _row(buyer_page, "宁波明达保温制品有限公司"),
        _row(buyer_page, "Ohio Drinkware"),
    )
    assert chen_row.locator("td").nth(1).inner_text() == "US$2.94"  # 21 CNY × 0.14
    assert "CN¥21.00" in chen_row.locator("td").nth(2).inner_text()
    assert mike_row.locator("td").nth(1).inner_text() == "US$3.10"
    assert "US$3.10" in mike_row.locator("td").nth(2).inner_text()
    rows = buyer_page.locator("table.compare-table tbody tr")
    assert rows.count() == 2
    assert "宁波明达" in rows.first.inner_text()  # the cheaper one, once converted, first

    # The buyer asks the Chinese supplier a question: on to the conversation.
    question = "Can you print our logo on the lid?"
    chen_row.locator("details.ask-question summary").click()
    chen_row.locator("details.ask-question textarea[name=message]").fill(question)
    chen_row.locator(f"form[action$='/quotations/{chen_quote.pk}/ask/'] button").click()
    buyer_page.wait_for_url(re.compile(r".*/en/messages/\d+/$"))
    conversation = Conversation.objects.get(buyer_company=buying_request.buyer)
    assert conversation.supplier_company_id == mingda.pk
    assert question in buyer_page.locator("ol.messages-thread").inner_text()

    # The supplier replies in the conversation, in Simplified Chinese.
    reply = "可以，激光刻印标志，每个加0.5元。"
    chen_page.goto(f"{base}/zh-hans/messages/")
    chen_page.click(f"a[href$='/zh-hans/messages/{conversation.pk}/']")
    chen_page.wait_for_url(f"**/zh-hans/messages/{conversation.pk}/")
    # The buyer's English reads in Chinese by machine translation, the original one click away.
    thread = chen_page.locator("ol.messages-thread")
    assert "机器翻译" in thread.inner_text() and question not in thread.inner_text()
    thread.locator("li.from-buyer details.original summary").last.click()
    assert question in thread.inner_text()
    chen_page.fill("form.reply-form textarea[name=body]", reply)
    chen_page.click("form.reply-form button[type=submit]")
    chen_page.wait_for_load_state()
    assert reply in chen_page.locator("ol.messages-thread li.from-supplier").inner_text()

    # The buyer sees the reply, goes back to the comparison and awards the Chinese supplier.
    buyer_page.reload()
    thread = buyer_page.locator("ol.messages-thread")
    assert "Machine translation" in thread.inner_text()
    thread.locator("li.from-supplier details.original summary").last.click()
    assert reply in thread.inner_text()
    buyer_page.goto(f"{base}/en/requests/{buying_request.pk}/compare/?currency=USD")
    # Awarding takes two steps: the confirmation page, then its button.
    _row(buyer_page, "宁波明达保温制品有限公司").locator(
        f"a[href$='/quotations/{chen_quote.pk}/award/']"
    ).click()
    buyer_page.wait_for_url(f"**/quotations/{chen_quote.pk}/award/")
    assert buying_request.status == RequestStatus.OPEN
    buyer_page.click(f"main form[action$='/quotations/{chen_quote.pk}/award/'] button")
    buyer_page.wait_for_url(f"**/en/requests/{buying_request.pk}/compare/")
    assert "The request is awarded" in buyer_page.inner_text("main")
    buying_request.refresh_from_db()
    assert buying_request.status == RequestStatus.AWARDED
    assert buyer_page.locator("table.compare-table a[href*='/award/']").count() == 0

    # Both suppliers see the outcome on their quotations, and got a notification.
    chen_page.goto(f"{base}/zh-hans/requests/quotations/")
    chen_line = chen_page.locator("table.data tbody tr").filter(has_text=REQUEST_TITLE)
    assert chen_line.locator(".badge.status-awarded").count() == 1
    mike_page.goto(f"{base}/en/requests/quotations/")
    mike_line = mike_page.locator("table.data tbody tr").filter(has_text=REQUEST_TITLE)
    assert "Not selected" in mike_line.locator(".badge.status-not_selected").inner_text()
    mike_page.goto(f"{base}/en/requests/{buying_request.pk}/")
    assert "Your company's quotation: Not selected." in mike_page.inner_text("main")

    chen_quote.refresh_from_db()
    mike_quote.refresh_from_db()
    assert chen_quote.status == QuotationStatus.AWARDED
    assert mike_quote.status == QuotationStatus.NOT_SELECTED
    assert Notification.objects.filter(
        recipient=chen, kind=NotificationKind.QUOTATION_AWARDED
    ).exists()
    assert Notification.objects.filter(
        recipient=mike, kind=NotificationKind.QUOTATION_NOT_SELECTED
    ).exists()

    chen_page.goto(f"{base}/zh-hans/messages/notifications/")
    chen_notice = chen_page.locator("ul.notifications li").filter(has_text=REQUEST_TITLE).first
    assert chen_notice.locator(f"a[href='/zh-hans/requests/{buying_request.pk}/']").is_visible()
    mike_page.goto(f"{base}/en/messages/notifications/")
    mike_notices = mike_page.locator("ul.notifications").inner_text()
    assert f"Another quotation was chosen for “{REQUEST_TITLE}”." in mike_notices

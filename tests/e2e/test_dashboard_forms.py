"""The supplier's long forms in a real browser (#13): the product form's error summary, its
category picker (type to filter, in Chinese or English; suggestions from the title) and its
default listing language; the quotation form's volume prices as rows added and removed."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.e2e.people import fill_quote, log_in
from tests.factories.accounts import make_user
from tests.factories.catalog import flask_category
from tests.factories.companies import make_company, make_trader
from tests.factories.sourcing import make_request
from tradepost.catalog.models import Product
from tradepost.sourcing.models import Quotation

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_supplier_picks_the_category_by_typing_and_fixes_errors_from_the_summary(
    live_server, page, reference_data
):
    base = live_server.url
    flasks = flask_category()
    chen = make_user(email="chen@mingda-flask.example", full_name="陈明")
    make_company(
        owner=chen, country="CN", legal_name="宁波明达保温制品有限公司", original_language="zh-hans"
    )
    log_in(page, base, chen)

    page.goto(f"{base}/en/dashboard/products/create/")
    # The listing is in the company's language unless the supplier says otherwise.
    assert page.input_value("#id_original_language") == "zh-hans"

    # Suggestions for the title typed, from the server.
    page.fill("#id_title", "Stainless steel vacuum flask 500 ml")
    suggestions = page.locator(".category-suggestions button")
    expect(suggestions.first).to_contain_text("Vacuum Flasks and Insulated Bottles")
    assert suggestions.count() <= 5

    # Type to filter, in Chinese on the English page; the full path is shown.
    picker = page.locator("#id_category_id-filter")
    picker.fill("保温瓶")
    option = page.locator("#id_category_id-filter-list [role=option]").filter(
        has_text="Vacuum Flasks and Insulated Bottles"
    )
    expect(option).to_have_count(1)
    expect(option).to_contain_text(" › ")
    option.click()
    assert page.input_value("#id_category_id") == str(flasks.pk)
    expect(page.locator("#id_category_id-filter-status")).to_contain_text("Chosen:")

    # The keyboard works too: type English, arrow down, Enter (which must not send the form).
    picker.fill("insulated bottles")
    picker.press("ArrowDown")
    picker.press("Enter")
    assert page.url.endswith("/dashboard/products/create/")
    assert page.input_value("#id_category_id") == str(flasks.pk)

    # The minimum order quantity is left out: the service refuses the product.
    page.select_option("#id_moq_unit", "pieces")
    page.fill("#id_price_min", "2.50")
    page.fill("#id_price_max", "3.80")
    page.click("form.product-form button[type=submit]")
    page.wait_for_load_state()

    # The summary is at the top, has the focus, and its link puts the focus in the field.
    summary = page.locator("#error-summary")
    expect(summary).to_be_visible()
    expect(summary).to_be_focused()
    assert summary.get_attribute("role") == "alert"
    summary.locator('a[href="#id_moq"]').click()
    expect(page.locator("#id_moq")).to_be_focused()
    assert "id_moq_error" in (page.get_attribute("#id_moq", "aria-describedby") or "")

    page.fill("#id_moq", "500")
    page.click("form.product-form button[type=submit]")
    page.wait_for_url("**/dashboard/products/*/update/")
    product = Product.objects.get(title="Stainless steel vacuum flask 500 ml")
    assert product.category_id == flasks.pk
    assert product.original_language == "zh-hans"
    assert product.moq == Decimal("500")


def test_supplier_quotes_two_volume_prices_as_rows(live_server, page, reference_data):
    base = live_server.url
    buyer, _company = make_trader(country="NL")
    buying_request = make_request(actor=buyer)
    supplier, supplier_company = make_trader()
    log_in(page, base, supplier)

    page.goto(f"{base}/en/requests/{buying_request.pk}/quote/")
    fill_quote(page, unit_price="3.20", currency="USD", moq="500", lead_time="20", place="Ningbo")

    rows = page.locator(".price-tiers [data-formset-row]:visible")
    expect(rows).to_have_count(2)
    # Without a script the rows' removal boxes would show; with it, buttons do.
    expect(page.locator(".price-tiers [data-formset-delete]:visible")).to_have_count(0)
    page.fill("#id_tiers-0-min_quantity", "1000")
    page.fill("#id_tiers-0-unit_price", "3.00")
    page.fill("#id_tiers-1-min_quantity", "5000")
    page.fill("#id_tiers-1-unit_price", "2.80")
    # A third row, added, filled, then removed again.
    page.click(".price-tiers [data-formset-add]")
    expect(rows).to_have_count(3)
    expect(page.locator("#id_tiers-2-min_quantity")).to_be_focused()
    page.fill("#id_tiers-2-min_quantity", "20000")
    page.fill("#id_tiers-2-unit_price", "2.50")
    rows.nth(2).locator("[data-formset-remove]").click()
    expect(rows).to_have_count(2)

    page.click("main form.stacked button[type=submit]")
    page.wait_for_url("**/requests/quotations/")
    quotation = Quotation.objects.get(request=buying_request, supplier=supplier_company)
    assert quotation.price_tiers == [
        {"min_quantity": "1000.000", "unit_price": "3.0000"},
        {"min_quantity": "5000.000", "unit_price": "2.8000"},
    ]

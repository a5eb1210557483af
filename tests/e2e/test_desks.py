"""The supplier desk in a real browser (#13): its charts are drawn by Chart.js from the page's
data block, without a console error or a Content-Security-Policy violation (the `page`
fixture fails the test on one), and the operator reaches the operator desk from the menu."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.page_checks import axe_response, serious_violations
from tests.e2e.people import log_in
from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tradepost.insights.models import ProductViewDay, SearchWordDay

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _watch_errors(page) -> list[str]:
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.mark.parametrize("language", ["en", "zh-hant"])
def test_the_supplier_desk_draws_its_charts(live_server, page, reference_data, language):
    owner, company = make_trader()
    product = make_product(company=company)
    today = timezone.localdate()
    ProductViewDay.objects.create(product=product, company=company, day=today, count=12)
    SearchWordDay.objects.create(company=company, word="保温杯", day=today, count=5)
    errors = _watch_errors(page)
    log_in(page, live_server.url, owner, language)

    page.goto(f"{live_server.url}/{language}/accounts/dashboard/")
    page.click(f"a[href='/{language}/dashboard/insights/']")
    page.wait_for_load_state()
    assert page.url.endswith(f"/{language}/dashboard/insights/")

    for chart in ("chart-views", "chart-trade", "chart-response", "chart-words"):
        canvas = page.locator(f"#{chart}")
        expect(canvas).to_be_visible()
        box = canvas.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100, (chart, box)
        # Chart.js has drawn into it: the canvas has a drawing buffer and a chart attached.
        drawn = page.evaluate(
            "id => { const c = document.getElementById(id); const chart = Chart.getChart(c);"
            " return !!chart && c.width > 0 && c.height > 0 && chart.data.datasets.length > 0; }",
            chart,
        )
        assert drawn, chart
    # The numbers' table is there too (for screen readers and without scripts).
    expect(page.locator("table.desk-table").first).to_be_visible()
    assert errors == []
    assert serious_violations(axe_response(page)) == []


def test_without_scripts_the_desk_shows_its_tables_only(live_server, browser, reference_data):
    owner, _company = make_trader()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server.url, owner)
        page.goto(f"{live_server.url}/en/dashboard/insights/")
        expect(page.locator("[data-desk-charts]").first).to_be_hidden()
        expect(page.locator("table.desk-table").first).to_be_visible()
        assert page.locator("table.desk-table tbody tr").first.is_visible()
    finally:
        context.close()


def test_the_operator_goes_from_the_account_menu_to_the_desk(live_server, page, reference_data):
    operator = make_operator()
    errors = _watch_errors(page)
    log_in(page, live_server.url, operator, "zh-hans")
    page.click("details.account-menu summary")
    page.click("a.operator-link")
    page.wait_for_load_state()
    assert page.url.endswith("/zh-hans/dashboard/operator/")
    expect(page.locator("h1")).to_have_text("运营工作台")
    # On to the admin (the admin's own pages are not the site's, and not checked here).
    expect(page.locator("a.button[href='/admin/']")).to_be_visible()
    expect(page.locator("a[href='/admin/catalog/product/?status__exact=hidden']")).to_be_visible()
    assert errors == []
    assert serious_violations(axe_response(page)) == []

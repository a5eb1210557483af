"""A Dutch buyer that awarded a Chinese supplier reviews it from the request's page; the review
and the supplier's new average appear on the company page and its reviews page; the supplier's
owner replies in Simplified Chinese. The review pages have no serious accessibility violation."""

from __future__ import annotations

import pytest

from tests.e2e.page_checks import axe_response, serious_violations
from tests.e2e.people import log_in
from tests.factories.companies import make_trader
from tests.factories.reviews import make_award
from tradepost.reviews.models import Review

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_buyer_reviews_and_the_supplier_replies(live_server, browser, reference_data):
    base = live_server.url
    supplier_owner, supplier = make_trader(
        legal_name="宁波保温杯有限公司", english_name="Ningbo Flasks"
    )
    buyer, _supplier, quotation = make_award(supplier=supplier_owner)
    buyer_context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = buyer_context.new_page()
    log_in(page, base, buyer)
    page.goto(f"{base}/en/requests/{quotation.request_id}/")
    with page.expect_navigation():  # axe must not run on the page being left
        page.click("a.review-link")
    assert not serious_violations(axe_response(page))
    page.check("input[name=rating][value='4']")
    page.fill("textarea[name=text]", "Good flasks; two cartons arrived dented.")
    with page.expect_navigation():
        page.click("main form.stacked button[type=submit]")
    assert f"/en/companies/{supplier.slug}/reviews/" in page.url
    assert "4.0 ★ (1 review)" in page.inner_text("main")
    assert "two cartons arrived dented" in page.inner_text("main")
    assert not serious_violations(axe_response(page))
    page.goto(f"{base}/en/companies/{supplier.slug}/")
    assert "4.0 ★ (1 review)" in page.inner_text("main")
    buyer_context.close()

    supplier_context = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844})
    page = supplier_context.new_page()
    log_in(page, base, supplier_owner, "zh-hans")
    page.goto(f"{base}/zh-hans/companies/{supplier.slug}/reviews/")
    assert "4.0 ★（1 条评价）" in page.inner_text("main")
    page.fill("textarea[name=reply]", "谢谢，下一批货我们会加强包装。")
    page.click(".review-reply-form button[type=submit]")
    page.wait_for_load_state()
    assert "谢谢，下一批货我们会加强包装。" in page.inner_text(".review-reply")
    assert not serious_violations(axe_response(page))
    supplier_context.close()
    review = Review.objects.get()
    assert (
        review.reply == "谢谢，下一批货我们会加强包装。" and review.reply_author == supplier_owner
    )

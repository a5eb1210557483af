"""A supplier signs up, describes the company, publishes a product with a photo, and a
Traditional-Chinese reader finds it on its public page and in its category."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from django.core import mail

from tests.factories.catalog import flask_category
from tests.factories.images import png_bytes
from tradepost.catalog.models import Product, ProductStatus

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _link_path(body: str, marker: str) -> str:
    for url in re.findall(r"https?://\S+", body):
        if marker in url:
            return urlparse(url).path
    raise AssertionError(f"no link containing {marker!r} in the email:\n{body}")


def test_supplier_publishes_a_product_that_a_traditional_chinese_reader_finds(
    live_server, page, mailoutbox, tmp_path, reference_data
):
    base = live_server.url
    leaf = flask_category()

    # Sign up.
    page.goto(f"{base}/en/accounts/signup/")
    page.fill("#id_email", "sales@mingda-flask.example")
    page.fill("#id_full_name", "Chen Ming")
    page.fill("#id_password", "a-long-Passphrase-2026")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    assert len(mail.outbox) == 1

    # Confirm the email address from the link in the message.
    verify_path = _link_path(mail.outbox[0].body, "/email/verify/")
    page.goto(base + verify_path)
    page.click("main form:not(.inline) button[type=submit]")
    page.wait_for_load_state()
    assert "confirm your email" not in page.inner_text("main")

    # Describe the company.
    page.goto(f"{base}/en/dashboard/company/create/")
    page.fill("#id_legal_name", "深圳市明达保温制品有限公司")
    page.fill("#id_english_name", "Shenzhen Mingda Thermal Products Co., Ltd.")
    page.select_option("#id_country", "CN")
    page.check("input[name=business_types][value=manufacturer]")
    page.click("main form:not(.inline) button[type=submit]")
    page.wait_for_load_state()

    assert "/dashboard/company/create/" not in page.url, page.inner_text("main")

    # Create the product, add a photo, publish.
    page.goto(f"{base}/en/dashboard/products/create/")
    page.fill("#id_title", "不锈钢真空保温杯 500ml 双层")
    page.select_option("#id_original_language", "zh-hans")
    page.select_option("#id_category_id", str(leaf.pk))
    page.fill("#id_description", "<p>304不锈钢内胆，保温12小时。</p>")
    page.fill("#id_moq", "500")
    page.select_option("#id_moq_unit", "pieces")
    page.fill("#id_price_min", "2.50")
    page.fill("#id_price_max", "3.80")
    page.select_option("#id_currency", "USD")
    page.check("input[name=incoterms][value=FOB]")
    page.click("form.product-form button[type=submit]")
    page.wait_for_load_state()

    product = Product.objects.get(title__startswith="不锈钢真空保温杯")
    assert product.status == ProductStatus.DRAFT
    photo = tmp_path / "flask.png"
    photo.write_bytes(png_bytes(320, 320, colour=(200, 60, 30), band=(80, 120, 240, 200)))
    page.goto(f"{base}/en/dashboard/products/{product.pk}/update/")
    page.set_input_files("input[name=image]", str(photo))
    page.locator("form[enctype='multipart/form-data'] button[type=submit]").click()
    page.wait_for_load_state()
    assert product.images.count() == 1

    page.locator(f"form[action$='/dashboard/products/{product.pk}/publish/'] button").click()
    page.wait_for_load_state()
    product.refresh_from_db()
    assert product.status == ProductStatus.PUBLISHED

    # Switch the interface to Traditional Chinese with the language switcher.
    page.goto(f"{base}/en/")
    page.select_option("#language-select", "zh-hant")
    page.wait_for_url("**/zh-hant/**")
    assert page.locator("html").get_attribute("lang") == "zh-hant"

    # The public product page, in Traditional Chinese, with the photo: the simplified title
    # is shown converted, marked as such, with the original one click away.
    page.goto(f"{base}/zh-hant/products/{product.pk}-{product.slug}/")
    assert page.locator("h1").inner_text().startswith("不鏽鋼真空保溫杯")
    assert "不锈钢真空保温杯" in page.content()
    assert page.locator("html").get_attribute("lang") == "zh-hant"
    gallery_image = page.locator("main img[src*='/media/']").first
    assert gallery_image.is_visible()
    assert leaf.name_zh_hant in page.content()

    # The product is listed in its category, in Traditional Chinese.
    page.goto(f"{base}/zh-hant/categories/{leaf.slug}/")
    assert leaf.name_zh_hant in page.locator("h1").inner_text()
    card = page.locator(f"a[href*='/zh-hant/products/{product.pk}-']").first
    assert card.is_visible()
    card.click()
    page.wait_for_url(f"**/zh-hant/products/{product.pk}-**")
    assert page.locator("h1").inner_text().startswith("不鏽鋼真空保溫杯")

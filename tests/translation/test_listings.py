"""Listings read in the viewer's language by machine translation: stored in the background
when a listing is published or edited, shown on its page, its cards and the API with a
"machine translation" label and the original one click away; the supplier's own
translations always win."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests.factories.catalog import make_flask
from tests.factories.catalog import translate as supplier_translates
from tradepost.catalog import services
from tradepost.catalog.machine_texts import products_translate
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db

MARK = "Machine translation"


def _page(client, product, language: str) -> str:
    with translation.override(language):
        path = product.get_absolute_url()
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def chinese(cast):
    product = make_flask(
        cast.company,
        "不锈钢真空保温杯 YX-VF-500 500ml",
        "zh-hans",
        description="<p>双层不锈钢</p><p>保温12小时 &lt;script&gt;</p>",
        attributes=[{"name": "材质", "value": "不锈钢"}],
        keywords="保温杯",
    )
    products_translate([product.pk])
    return product


def test_a_chinese_listing_reads_in_english_with_a_label_and_the_original(client, chinese):
    html = _page(client, chinese, "en")
    assert MARK in html
    assert "Stainless Steel" in html and "YX-VF-500" in html
    assert 'id="original"' in html and "不锈钢真空保温杯 YX-VF-500 500ml" in html
    # The description's paragraphs are kept, its text escaped, never interpreted.
    assert "&lt;script&gt;" in html and "<script>" not in html.split('id="original"')[0][-3000:]
    # The attributes, translated, and as written in the original listing.
    translated, original = html.split('id="original"')
    assert "stainless steel" in translated.split('id="attributes-heading"')[1].lower()
    assert "材质" in original and "材质" not in translated.split('id="attributes-heading"')[1]


def test_the_listing_reads_as_written_in_its_own_language(client, chinese):
    html = _page(client, chinese, "zh-hans")
    assert MARK not in html and "机器翻译" not in html
    assert "不锈钢真空保温杯" in html


def test_the_suppliers_own_translation_wins(client, chinese):
    supplier_translates(chinese, "en", "Double-wall flask by Acme")
    html = _page(client, chinese, "en")
    assert "Double-wall flask by Acme" in html
    assert MARK not in html


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_an_english_listing_reads_in_chinese_in_the_readers_script(client, cast, language):
    product = make_flask(cast.company, "Stainless Steel Vacuum Flask 500ml", "en")
    products_translate([product.pk])
    html = _page(client, product, language)
    expected = "不锈钢" if language == "zh-hans" else "不鏽鋼"
    assert expected in html
    assert "Stainless Steel Vacuum Flask 500ml" in html  # the original, one click away


def test_cards_carry_the_machine_title_and_label(client, chinese):
    with translation.override("en"):
        path = reverse("catalog:category_detail", args=[chinese.category.slug])
    html = client.get(path).content.decode()
    assert "Stainless Steel" in html and MARK in html


def test_publishing_and_editing_store_translations_in_the_background(
    cast, django_capture_on_commit_callbacks
):
    product = make_flask(cast.company, "不锈钢保温杯", "zh-hans", status="draft")
    with django_capture_on_commit_callbacks(execute=True):
        services.product_publish(actor=cast.owner, product=product)
        assert not StoredTranslation.objects.exists()  # not in the request: after the commit
    first = set(StoredTranslation.objects.values_list("key", flat=True))
    assert first
    with django_capture_on_commit_callbacks(execute=True):
        services.product_update(actor=cast.owner, product=product, title="玻璃保温杯")
    second = set(StoredTranslation.objects.values_list("key", flat=True))
    assert first < second  # the new title has its own; the unchanged texts kept theirs
    products_translate([product.pk])
    assert set(StoredTranslation.objects.values_list("key", flat=True)) == second


def test_drafts_and_garbled_titles_get_no_translation(cast):
    draft = make_flask(cast.company, "不锈钢保温杯", "zh-hans", status="draft")
    garbled = make_flask(cast.company, "ä¸\x8dé”ˆé’¢ä¿æ¸©æ¯", "zh-hans")
    assert products_translate([draft.pk, garbled.pk]) == 0


def test_the_public_api_lists_machine_translations_after_the_suppliers(client, chinese):
    supplier_translates(chinese, "zh-hant", "不鏽鋼真空保溫杯")
    body = client.get(f"/api/v1/products/{chinese.pk}").json()
    rows = {row["language"]: row for row in body["translations"]}
    assert rows["zh-hant"]["machine_translated"] is False
    english = rows["en"]
    assert english["machine_translated"] is True
    assert "Stainless Steel" in english["title"]
    assert english["attributes"][0]["value"].lower().startswith("stainless")
    assert "<p>" in english["description"] and "&lt;script&gt;" in english["description"]

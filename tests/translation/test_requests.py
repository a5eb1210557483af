"""Buying requests read in the viewer's language: machine-translated, labelled, with the
original on the page; the buyer's Chinese shown in the reader's script."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from tests.factories.sourcing import make_quoted_request, make_request
from tradepost.sourcing import services
from tradepost.sourcing.machine_texts import requests_translate
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db

ENGLISH = "Stainless steel vacuum flasks 500ml"


def _get(client, language: str, name: str, **kwargs) -> str:
    with translation.override(language):
        path = reverse(name, kwargs=kwargs)
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def test_an_english_request_reads_in_traditional_chinese_on_the_board_and_its_page(client):
    item = make_request(title=ENGLISH, original_language="en")
    requests_translate([item.pk])
    board = _get(client, "zh-hant", "sourcing:board")
    assert "不鏽鋼" in board and "機器翻譯" in board
    page = _get(client, "zh-hant", "sourcing:request_detail", pk=item.pk)
    assert "不鏽鋼" in page.split('id="original"')[0]
    assert ENGLISH in page.split('id="original"')[1]  # the original, one click away
    assert "由機器譯自買家以英文發布的採購需求" in page  # its language named in the reader's


def test_a_simplified_request_shows_in_traditional_script_and_english_by_machine(client):
    item = make_request(
        title="不锈钢保温杯 500ml", description="<p>双层</p>", original_language="zh-hans"
    )
    requests_translate([item.pk])
    page = _get(client, "zh-hant", "sourcing:request_detail", pk=item.pk)
    assert "不鏽鋼保溫杯 500ml" in page and "機器翻譯" not in page
    english = _get(client, "en", "sourcing:request_detail", pk=item.pk)
    assert "Stainless Steel" in english and "Machine translation" in english
    assert "不锈钢保温杯 500ml" in english  # as written, under "Original request"


def test_posting_and_editing_a_request_translate_it_after_the_commit(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        item = make_request(title=ENGLISH, original_language="en")
    first = StoredTranslation.objects.count()
    assert first >= 2  # the title into both Chinese scripts (and the description)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_update(
            actor=item.created_by, buying_request=item, title="Glass vacuum flasks"
        )
    assert StoredTranslation.objects.count() > first


def test_a_quotations_note_reads_in_the_buyers_language_on_the_comparison(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        buyer, item, _quotes = make_quoted_request({"message": "我们每天生产不锈钢保温杯。"})
    client.force_login(buyer)
    page = _get(client, "en", "sourcing:compare", pk=item.pk)
    assert "Stainless Steel" in page or "stainless steel" in page
    assert "Machine translation" in page
    assert "我们每天生产不锈钢保温杯。" in page  # the original, behind "Show the original"


def test_the_comparison_api_gives_each_note_its_language_and_translation(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        buyer, item, _quotes = make_quoted_request(
            {"message": "我们每天生产不锈钢保温杯。"}, {"message": "We make these every day."}
        )
    client.force_login(buyer)
    body = client.get(f"/api/v1/requests/{item.pk}/quotations", HTTP_ACCEPT_LANGUAGE="en").json()
    notes = {row["message_language"]: row["message_translation"] for row in body["items"]}
    assert notes["en"] is None
    assert notes["zh-hans"]["machine_translated"] is True
    assert "stainless steel" in notes["zh-hans"]["text"].lower()


def test_the_api_gives_a_request_in_the_callers_language_beside_the_buyers_words(client):
    item = make_request(title=ENGLISH, description="<p>Double wall</p>", original_language="en")
    requests_translate([item.pk])
    one = client.get(f"/api/v1/requests/{item.pk}", headers={"Accept-Language": "zh-hant"}).json()
    assert one["title"] == ENGLISH and one["original_language"] == "en"
    translation = one["translation"]
    assert translation["language"] == "zh-hant" and translation["machine_translated"] is True
    assert "不鏽鋼" in translation["title"] and "<p>" in translation["description_html"]
    listed = client.get("/api/v1/requests", headers={"Accept-Language": "zh-hans"}).json()
    [row] = [row for row in listed["items"] if row["id"] == item.pk]
    assert "不锈钢" in row["translation"]["title"]
    english = client.get(f"/api/v1/requests/{item.pk}", headers={"Accept-Language": "en"}).json()
    assert english["translation"] is None

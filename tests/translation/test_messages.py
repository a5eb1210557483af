"""Conversation messages read in the reader's language: each side writes in its own and reads
the other's translated by machine (labelled, the original one click away), or Chinese written
in the other script converted into the reader's."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.messaging import make_conversation, make_parties
from tests.pages import log_in, page_url
from tradepost.messaging import services
from tradepost.messaging.machine_texts import (
    attach_message_texts,
    message_language,
    messages_translate,
)
from tradepost.messaging.models import Message
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db

ENGLISH = "Stainless steel vacuum flasks\nPrice for 1000 pieces?"
SIMPLIFIED = "不锈钢保温杯 500ml 的价格"
TRADITIONAL = "不鏽鋼保溫杯 500ml 的價格"


def _conversation(message: str, *, capture):
    """A conversation the buyer opened with `message`, translated once it committed."""
    parties = make_parties()
    with capture(execute=True):
        conversation = make_conversation(parties, message=message)
    return parties, conversation


def _page(client, user, conversation, language: str) -> str:
    log_in(client, user)
    response = client.get(page_url("messaging:detail", language, conversation_id=conversation.pk))
    assert response.status_code == 200
    return response.content.decode()


def _thread(html: str) -> str:
    return html.split('<ol class="messages-thread">')[1].split("</ol>")[0]


def test_the_language_of_a_message_is_guessed_from_its_text():
    assert message_language("Price for 1000 pieces?") == "en"
    assert message_language("Precio por 1000 piezas") == "en"  # other languages read as English
    assert message_language(SIMPLIFIED) == "zh-hans"
    assert message_language(TRADITIONAL) == "zh-hant"
    assert message_language("你好") == "zh-hans"  # the same in both scripts


def test_an_english_message_reads_in_traditional_chinese_with_the_original_one_click_away(
    client, django_capture_on_commit_callbacks
):
    parties, conversation = _conversation(ENGLISH, capture=django_capture_on_commit_callbacks)
    thread = _thread(_page(client, parties.supplier_member, conversation, "zh-hant"))
    translated, original = thread.split('<details class="original">')
    assert "不鏽鋼保溫杯<br>" in translated and "機器翻譯" in translated
    assert "Stainless steel" not in translated
    assert "<summary>" in original and 'lang="en"' in original
    assert "Stainless steel vacuum flasks<br>Price for 1000 pieces?" in original


def test_a_simplified_message_reads_in_english_by_machine(
    client, django_capture_on_commit_callbacks
):
    parties, conversation = _conversation(SIMPLIFIED, capture=django_capture_on_commit_callbacks)
    thread = _thread(_page(client, parties.supplier_member, conversation, "en"))
    translated, original = thread.split('<details class="original">')
    assert "stainless steel vacuum flask" in translated.lower()
    assert "Machine translation" in translated
    assert f'lang="zh-Hans">{SIMPLIFIED}' in original


def test_a_message_in_the_readers_language_is_shown_as_written(
    client, django_capture_on_commit_callbacks
):
    parties, conversation = _conversation(ENGLISH, capture=django_capture_on_commit_callbacks)
    thread = _thread(_page(client, parties.supplier_member, conversation, "en"))
    assert "Stainless steel vacuum flasks<br>Price for 1000 pieces?" in thread
    assert "Machine translation" not in thread and "<details" not in thread
    # The sender's own message, read on a Chinese page, is translated like any other.
    thread = _thread(_page(client, parties.buyer, conversation, "zh-hans"))
    assert "机器翻译" in thread and "不锈钢保温杯" in thread


def test_a_simplified_message_on_a_traditional_page_is_converted_not_translated(
    client, django_capture_on_commit_callbacks
):
    parties, conversation = _conversation(SIMPLIFIED, capture=django_capture_on_commit_callbacks)
    thread = _thread(_page(client, parties.supplier_member, conversation, "zh-hant"))
    converted, original = thread.split('<details class="original">')
    assert TRADITIONAL in converted
    assert "機器翻譯" not in thread
    assert "lang-mark converted" in converted
    assert f'lang="zh-Hans">{SIMPLIFIED}' in original


def test_a_message_not_translated_yet_is_shown_as_written(client):
    parties = make_parties()
    conversation = make_conversation(parties, message=ENGLISH)  # its task never ran
    assert StoredTranslation.objects.count() == 0
    thread = _thread(_page(client, parties.supplier_member, conversation, "zh-hant"))
    assert "Stainless steel vacuum flasks<br>" in thread and "機器翻譯" not in thread


def test_the_api_answers_each_messages_language_and_translation(
    django_capture_on_commit_callbacks,
):
    parties, conversation = _conversation(ENGLISH, capture=django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.supplier_owner, conversation=conversation, body=SIMPLIFIED
        )
    api = ApiClient(parties.supplier_member)
    api.headers["Accept-Language"] = "zh-hant"
    response = api.get(f"/api/v1/conversations/{conversation.pk}/messages")
    assert response.status_code == 200, response.content
    english, chinese = response.json()["items"]
    assert english["body"] == ENGLISH and english["language"] == "en"
    assert english["translation"]["language"] == "zh-hant"
    assert english["translation"]["text"].startswith("不鏽鋼保溫杯\n")
    assert english["translation"]["machine_translated"] is True
    assert chinese["language"] == "zh-hans" and chinese["translation"] is None  # converted
    api.headers["Accept-Language"] = "en"
    english, chinese = api.get(f"/api/v1/conversations/{conversation.pk}/messages").json()["items"]
    assert english["translation"] is None
    assert chinese["translation"]["language"] == "en"
    assert "stainless steel" in chinese["translation"]["text"].lower()


def test_a_hidden_message_has_no_language_nor_translation_in_the_api(
    django_capture_on_commit_callbacks,
):
    parties, conversation = _conversation(ENGLISH, capture=django_capture_on_commit_callbacks)
    Message.objects.update(hidden_at=conversation.created_at)
    api = ApiClient(parties.supplier_member)
    api.headers["Accept-Language"] = "zh-hant"
    (item,) = api.get(f"/api/v1/conversations/{conversation.pk}/messages").json()["items"]
    assert item["body"] == "" and item["language"] is None and item["translation"] is None


def test_sending_a_message_stores_its_translations_after_the_commit(
    django_capture_on_commit_callbacks,
):
    parties = make_parties()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        conversation = make_conversation(parties, message=ENGLISH)
    assert StoredTranslation.objects.count() == 0
    for callback in callbacks:
        callback()
    assert set(StoredTranslation.objects.values_list("target_language", flat=True)) == {
        "zh-hans",
        "zh-hant",
    }
    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.supplier_owner, conversation=conversation, body=SIMPLIFIED
        )
    english = StoredTranslation.objects.filter(source_language="zh-hans", target_language="en")
    assert english.exists()
    # Again: nothing is written twice.
    assert messages_translate(Message.objects.values_list("pk", flat=True)) == 0


def test_html_in_a_message_stays_escaped_in_the_original_and_the_translation(
    client, django_capture_on_commit_callbacks
):
    body = "<script>alert(1)</script> stainless steel"
    parties, conversation = _conversation(body, capture=django_capture_on_commit_callbacks)
    for language in ("zh-hant", "en"):
        html = _page(client, parties.supplier_member, conversation, language)
        thread = _thread(html)
        assert "<script>" not in thread and "<脚本>" not in thread and "<腳本>" not in thread
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in thread
    assert "機器翻譯" in _thread(_page(client, parties.supplier_member, conversation, "zh-hant"))


def test_a_page_of_messages_reads_its_translations_in_one_query(
    django_capture_on_commit_callbacks, django_assert_num_queries
):
    parties, conversation = _conversation(ENGLISH, capture=django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        for body in (SIMPLIFIED, TRADITIONAL, "Ten cartons, please", SIMPLIFIED + " 2"):
            services.message_send(
                actor=parties.supplier_owner, conversation=conversation, body=body
            )
    messages = list(Message.objects.order_by("pk"))
    with django_assert_num_queries(1):
        attach_message_texts(messages, "en")
    assert [m.body_language for m in messages] == ["en", "zh-hans", "zh-hant", "en", "zh-hans"]
    assert [m.machine_text is not None for m in messages] == [False, True, True, False, True]
    with django_assert_num_queries(0):  # nothing to translate for a simplified reader...
        attach_message_texts(messages[1:2], "zh-hans")
    assert messages[1].machine_text is None and messages[1].converted_body is None
    attach_message_texts(messages[2:3], "zh-hans")  # ...but traditional, converted
    assert messages[2].converted_body == SIMPLIFIED

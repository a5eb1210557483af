"""Emails quote what someone wrote as the pages show it: in the recipient's language by
machine (labelled, with the original below), in their Chinese script when written in the
other one, and as written in their own language. Such an email is rendered by the worker once
the translation is stored, and the stored row is the one the pages read."""

from __future__ import annotations

import pytest

from tests.factories.companies import make_trader
from tests.factories.messaging import make_conversation, make_parties
from tests.factories.sourcing import make_quotation, make_request
from tradepost.notify.emails import Quoted, machine_context, quote
from tradepost.translation.engines import Kind
from tradepost.translation.models import StoredTranslation

pytestmark = pytest.mark.django_db

ENGLISH = "Stainless steel vacuum flasks\nPrice for 1000 pieces?"
SIMPLIFIED = "不锈钢保温杯 500ml 的价格"


def _only_mail_to(mailoutbox, user):
    [message] = [m for m in mailoutbox if m.to == [user.email]]
    return message


def _inquiry_email(mailoutbox, capture, *, supplier_language: str, message: str):
    """The email a supplier member reading `supplier_language` gets for a new inquiry."""
    parties = make_parties(supplier_language=supplier_language)
    mailoutbox.clear()
    with capture(execute=True):
        make_conversation(parties, message=message)
    return _only_mail_to(mailoutbox, parties.supplier_member)


def _html(message) -> str:
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return html


def test_an_english_inquiry_reaches_a_chinese_supplier_translated_with_the_original(
    mailoutbox, django_capture_on_commit_callbacks
):
    email = _inquiry_email(
        mailoutbox,
        django_capture_on_commit_callbacks,
        supplier_language="zh-hant",
        message=ENGLISH,
    )
    assert email.extra_headers["Content-Language"] == "zh-hant"
    translated, original = email.body.split("\n原文：\n")
    assert "機器翻譯：" in translated and "不鏽鋼保溫杯" in translated
    assert "Stainless steel" not in translated
    assert ENGLISH in original
    assert "數量：1000" in email.body  # the quantity (a Decimal) survived the queue
    html = _html(email)
    assert "機器翻譯：" in html and "不鏽鋼保溫杯" in html and "Price for 1000 pieces?" in html
    # One stored row per text and language, shared with the conversation page.
    keys = StoredTranslation.objects.filter(target_language="zh-hant", kind="message")
    assert keys.count() == 1


def test_a_chinese_message_reaches_an_english_buyer_translated(
    mailoutbox, django_capture_on_commit_callbacks
):
    parties = make_parties(supplier_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(parties)
    from tradepost.messaging import services

    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.supplier_member, conversation=conversation, body=SIMPLIFIED
        )
    email = _only_mail_to(mailoutbox, parties.buyer)
    assert "Machine translation:" in email.body
    translated, original = email.body.split("Original:")
    assert "stainless steel vacuum flask" in translated.lower()
    assert SIMPLIFIED in original


def test_a_message_in_the_readers_language_or_script_is_quoted_without_a_label(
    mailoutbox, django_capture_on_commit_callbacks
):
    email = _inquiry_email(
        mailoutbox,
        django_capture_on_commit_callbacks,
        supplier_language="zh-hant",
        message=SIMPLIFIED,
    )
    assert "不鏽鋼保溫杯 500ml 的價格" in email.body  # converted into the reader's script
    assert "機器翻譯：" not in email.body  # (the English product title is translated)
    assert "數量：1000 件" in email.body

    email = _inquiry_email(
        mailoutbox,
        django_capture_on_commit_callbacks,
        supplier_language="en",
        message=ENGLISH,
    )
    assert ENGLISH in email.body and "Machine translation" not in email.body
    assert "Quantity: 1000 pieces" in email.body


def test_a_garbled_message_is_quoted_as_written_and_still_sent(
    mailoutbox, django_capture_on_commit_callbacks
):
    garbled = "é”ˆé’¢ä¿æ¸©æ¯ price for 1000 pieces?"  # Chinese read as Windows-1252
    email = _inquiry_email(
        mailoutbox,
        django_capture_on_commit_callbacks,
        supplier_language="zh-hans",
        message=garbled,
    )
    assert garbled in email.body and "机器翻译：" not in email.body


def test_a_new_request_reaches_a_chinese_supplier_with_its_title_translated(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    from tests.factories.catalog import make_product
    from tests.factories.search import index

    settings.TRADEPOST_FIRST_LOOK_MINUTES = 0
    owner, company = make_trader(legal_name="宁波保温杯有限公司")
    owner.preferred_language = "zh-hans"
    owner.save()
    index(make_product(company=company, title="不锈钢保温杯", original_language="zh-hans"))
    buyer, _company = make_trader(country="NL")
    with django_capture_on_commit_callbacks(execute=True):
        make_request(actor=buyer, title="Stainless steel vacuum flasks")

    email = _only_mail_to(mailoutbox, owner)
    sentence = email.body.split("\n\n")[1]
    assert "不锈钢" in sentence
    assert "（机器翻译，原文：“Stainless steel vacuum flasks”。）" in sentence


def test_a_quotation_email_quotes_the_suppliers_note_in_the_buyers_language(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        make_quotation(request, message=SIMPLIFIED)
    email = _only_mail_to(mailoutbox, buyer)
    note = email.body.split("The supplier's message:")[1]
    assert "Machine translation:" in note and "stainless steel" in note.lower()
    assert SIMPLIFIED in note.split("Original:")[1]
    assert "(Machine translation" not in email.body  # the buyer's own title, as written


def test_quoting_cuts_the_original_and_the_translation_at_the_limit():
    text = "不锈钢保温杯 " * 200
    context, machine = quote({"note": Quoted(text, "zh-hans", Kind.MESSAGE, limit=50)}, "en")
    assert len(context["note"]) == 51 and context["note"].endswith("…")
    assert machine["note"][0] == text  # the whole text is translated (the page's row)
    written = machine_context(machine)
    assert len(written["note_machine"]) == 51
    assert StoredTranslation.objects.count() == 1

"""Message emails go through a real SMTP server (aiosmtpd, started by the test): in the
recipient's language, with the conversation and unsubscribe links, never to one who opted out."""

from __future__ import annotations

import re
import time

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories.messaging import make_conversation, make_parties
from tests.mail import Received, wait_for
from tradepost.messaging import services
from tradepost.notify.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db


def _by_recipient(received: list[Received]) -> dict[str, Received]:
    result: dict[str, Received] = {}
    for item in received:
        assert len(item.recipients) == 1, item.recipients
        result[item.recipients[0]] = item
    return result


def _unsubscribe_path(text: str) -> str:
    match = re.search(r"https?://[^/\s]+(/[a-z-]+/messages/unsubscribe/[^/\s]+/)", text)
    assert match, text
    return match.group(1)


def test_inquiry_email_arrives_in_chinese_with_its_links(
    smtp_server, django_capture_on_commit_callbacks
):
    parties = make_parties(supplier_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(parties, message="Price for 1000 pieces, FOB Ningbo?")

    received = _by_recipient(wait_for(smtp_server, 2))
    assert set(received) == {parties.supplier_owner.email, parties.supplier_member.email}
    assert parties.buyer.email not in received  # the sender's side is not emailed

    conversation_link = f"{settings.SITE_URL}/zh-hans/messages/{conversation.pk}/"
    for address, item in received.items():
        message = item.message
        assert message["To"] == address
        assert item.sender in settings.DEFAULT_FROM_EMAIL
        assert item.subject == "来自 Rotterdam Imports BV 的新询盘：Vacuum flask 500ml"
        assert message["Content-Language"] == "zh-hans"
        assert "Price for 1000 pieces, FOB Ningbo?" in item.text
        assert conversation_link in item.text
        assert f'href="{conversation_link}"' in item.html
        unsubscribe = _unsubscribe_path(item.text)
        assert unsubscribe.startswith("/zh-hans/messages/unsubscribe/")
        assert unsubscribe in item.html
    # Each recipient gets a link of their own.
    assert len({_unsubscribe_path(item.text) for item in received.values()}) == 2


def test_reply_email_is_in_english_for_an_english_reader(
    smtp_server, django_capture_on_commit_callbacks
):
    parties = make_parties(supplier_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(parties)
    wait_for(smtp_server, 2)
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.supplier_owner, conversation=conversation, body="每个 2.30 美元。"
        )

    received = _by_recipient(wait_for(smtp_server, 2))
    assert set(received) == {parties.buyer.email, parties.buyer_colleague.email}
    for item in received.values():
        assert item.subject == (f"New message from 义乌好杯子有限公司 in “{conversation.subject}”")
        assert item.message["Content-Language"] == "en"
        assert "每个 2.30 美元。" in item.text
        assert f"{settings.SITE_URL}/en/messages/{conversation.pk}/" in item.text
        assert _unsubscribe_path(item.text).startswith("/en/messages/unsubscribe/")


def test_a_recipient_who_unsubscribed_gets_no_email(
    client, smtp_server, django_capture_on_commit_callbacks
):
    parties = make_parties(supplier_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(parties)
    received = _by_recipient(wait_for(smtp_server, 2))

    # The member follows the link of their email and confirms.
    unsubscribe = _unsubscribe_path(received[parties.supplier_member.email].text)
    assert client.get(unsubscribe).status_code == 200
    assert client.post(unsubscribe).status_code == 200
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.buyer, conversation=conversation, body="And for 5000 pieces?"
        )

    received = _by_recipient(wait_for(smtp_server, 1))
    time.sleep(0.2)  # nothing else arrives late
    assert set(_by_recipient(smtp_server.messages())) == {parties.supplier_owner.email}
    assert "And for 5000 pieces?" in received[parties.supplier_owner.email].text
    # The in-app notification still reaches them.
    assert Notification.objects.filter(
        recipient=parties.supplier_member, kind=NotificationKind.NEW_MESSAGE
    ).exists()


def test_a_forged_unsubscribe_link_changes_nothing(
    client, smtp_server, django_capture_on_commit_callbacks
):
    parties = make_parties()
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(parties)
    received = _by_recipient(wait_for(smtp_server, 2))
    token = _unsubscribe_path(received[parties.supplier_member.email].text).split("/")[-2]
    forged = reverse(
        "messaging:unsubscribe", args=[token[:-1] + ("B" if token.endswith("A") else "A")]
    )
    assert client.post(forged).status_code == 400
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(actor=parties.buyer, conversation=conversation, body="Still there?")

    assert set(_by_recipient(wait_for(smtp_server, 2))) == {
        parties.supplier_owner.email,
        parties.supplier_member.email,
    }

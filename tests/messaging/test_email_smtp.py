"""Message emails go through a real SMTP server (aiosmtpd, started by the test): in the
recipient's language, with the conversation and unsubscribe links, never to one who opted out."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
import time
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings
from django.urls import reverse

from tests.factories.messaging import make_conversation, make_parties
from tradepost.messaging import services
from tradepost.notify.models import Notification, NotificationKind

pytestmark = pytest.mark.django_db


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage
    raw: bytes

    @property
    def subject(self) -> str:
        """The subject as a mail client shows it (RFC 2047 words decoded, folding removed);
        the stdlib's new parser keeps the space of a header folded right after "Subject:"."""
        raw = email.message_from_bytes(self.raw)["Subject"]
        return str(make_header(decode_header(raw)))

    @property
    def text(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return part.get_content()

    @property
    def html(self) -> str:
        part = self.message.get_body(preferencelist=("html",))
        assert part is not None
        return part.get_content()


class CollectingHandler:
    """Keeps every message the server accepts."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.received.append(
                Received(
                    envelope.mail_from,
                    list(envelope.rcpt_tos),
                    parsed,  # type: ignore[arg-type]
                    envelope.original_content,
                )
            )
        return "250 Message accepted for delivery"

    def messages(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def clear(self) -> None:
        with self._lock:
            self.received.clear()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp_server(settings):
    handler = CollectingHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=_free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 10
    yield handler
    controller.stop()


def _wait_for(handler: CollectingHandler, count: int) -> list[Received]:
    """The SMTP transaction is over when send() returns, but be lenient with the server thread."""
    deadline = time.monotonic() + 5
    while len(handler.messages()) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return handler.messages()


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

    received = _by_recipient(_wait_for(smtp_server, 2))
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
    _wait_for(smtp_server, 2)
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.supplier_owner, conversation=conversation, body="每个 2.30 美元。"
        )

    received = _by_recipient(_wait_for(smtp_server, 2))
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
    received = _by_recipient(_wait_for(smtp_server, 2))

    # The member follows the link of their email and confirms.
    unsubscribe = _unsubscribe_path(received[parties.supplier_member.email].text)
    assert client.get(unsubscribe).status_code == 200
    assert client.post(unsubscribe).status_code == 200
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(
            actor=parties.buyer, conversation=conversation, body="And for 5000 pieces?"
        )

    received = _by_recipient(_wait_for(smtp_server, 1))
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
    received = _by_recipient(_wait_for(smtp_server, 2))
    token = _unsubscribe_path(received[parties.supplier_member.email].text).split("/")[-2]
    forged = reverse(
        "messaging:unsubscribe", args=[token[:-1] + ("B" if token.endswith("A") else "A")]
    )
    assert client.post(forged).status_code == 400
    smtp_server.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(actor=parties.buyer, conversation=conversation, body="Still there?")

    assert set(_by_recipient(_wait_for(smtp_server, 2))) == {
        parties.supplier_owner.email,
        parties.supplier_member.email,
    }

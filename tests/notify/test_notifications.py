"""Emails about inquiries and messages, sent through a real SMTP server started by the test
(aiosmtpd), and the in-app notifications beside them."""

import re

import pytest

from tests.factories.accounts import make_user
from tests.factories.messaging import make_conversation, make_parties
from tradepost.messaging import services
from tradepost.notify import selectors
from tradepost.notify import services as notify_services
from tradepost.notify.models import Notification, NotificationKind, NotificationPreference

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = "https://trade.example"


def _parts(message):
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    return text, html


def test_inquiry_email_in_each_recipients_language(smtp_server, django_capture_on_commit_callbacks):
    p = make_parties(supplier_language="zh-hans")
    p.supplier_member.preferred_language = "en"
    p.supplier_member.save()
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(p, message="Need 1000 pcs <b>with logo</b>")
    by_rcpt = {r.recipients[0]: r.message for r in smtp_server.messages()}
    assert set(by_rcpt) == {p.supplier_owner.email, p.supplier_member.email}

    chinese = by_rcpt[p.supplier_owner.email]
    assert chinese["Content-Language"] == "zh-hans"
    text, html = _parts(chinese)
    link = f"https://trade.example/zh-hans/messages/{conversation.pk}/"
    assert link in text
    assert f'href="{link}"' in html
    assert '<html lang="zh-hans">' in html
    assert "您收到此邮件" in text  # the shared footer, already translated
    assert "Rotterdam Imports BV" in chinese["Subject"]
    assert "Need 1000 pcs <b>with logo</b>" in text
    assert "&lt;b&gt;with logo&lt;/b&gt;" in html  # escaped in HTML
    assert re.search(r"https://trade\.example/zh-hans/messages/unsubscribe/[^/\s]+/", text)

    english = by_rcpt[p.supplier_member.email]
    assert english["Content-Language"] == "en"
    text, _html = _parts(english)
    assert f"https://trade.example/en/messages/{conversation.pk}/" in text
    assert "Vacuum flask 500ml" in english["Subject"]


def test_reply_email_goes_to_the_buyer_side(smtp_server, django_capture_on_commit_callbacks):
    p = make_parties()
    conversation = make_conversation(p)
    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(actor=p.supplier_owner, conversation=conversation, body="OK!")
    assert sorted(r.recipients[0] for r in smtp_server.messages()) == sorted(
        [p.buyer.email, p.buyer_colleague.email]
    )
    text, _html = _parts(smtp_server.messages()[0].message)
    assert "OK!" in text
    assert f"/en/messages/{conversation.pk}/" in text


def test_unsubscribe_link_stops_emails_but_not_notifications(
    client, smtp_server, django_capture_on_commit_callbacks
):
    p = make_parties()
    with django_capture_on_commit_callbacks(execute=True):
        conversation = make_conversation(p)
    owner_mail = next(
        r.message for r in smtp_server.messages() if r.recipients == [p.supplier_owner.email]
    )
    text, _html = _parts(owner_mail)
    link = re.search(r"https://trade\.example(/en/messages/unsubscribe/[^/\s]+/)", text)[1]
    # Opening the link (a mail scanner does) changes nothing; confirming does, without login.
    assert client.get(link).status_code == 200
    assert not NotificationPreference.objects.exists()
    assert client.post(link).status_code == 200
    assert not selectors.wants_message_emails(p.supplier_owner)
    assert selectors.wants_message_emails(p.supplier_member)

    smtp_server.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.message_send(actor=p.buyer, conversation=conversation, body="Any news?")
    assert [r.recipients for r in smtp_server.messages()] == [[p.supplier_member.email]]
    assert Notification.objects.filter(recipient=p.supplier_owner).count() == 2


@pytest.mark.parametrize("token", ["garbage", "x" * 600, "eyJ1Ijo1fQ:abc:def"])
def test_forged_unsubscribe_tokens_change_nothing(client, token):
    user = make_user()
    response = client.post(f"/en/messages/unsubscribe/{token}/")
    assert response.status_code == 400
    assert selectors.wants_message_emails(user)


def test_token_of_a_changed_address_is_refused():
    user = make_user()
    token = notify_services.unsubscribe_token(user)
    user.email = "new@example.com"
    user.save()
    assert notify_services.unsubscribe_with_token(token=token) is None
    assert selectors.wants_message_emails(user)


def test_no_email_is_sent_when_the_inquiry_is_refused(
    smtp_server, django_capture_on_commit_callbacks
):
    p = make_parties()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Exception):
        services.inquiry_send(actor=p.buyer, product=p.product, message="")
    assert smtp_server.messages() == []
    assert not Notification.objects.exists()


def test_mark_read_only_touches_own_notifications():
    p = make_parties()
    make_conversation(p)
    theirs = Notification.objects.get(recipient=p.supplier_owner)
    changed = notify_services.notifications_mark_read(actor=p.supplier_member, ids=[theirs.pk])
    assert changed == 0
    theirs.refresh_from_db()
    assert theirs.read_at is None
    assert selectors.unread_notification_count(user=p.supplier_owner) == 1
    notify_services.notifications_mark_read(actor=p.supplier_owner, ids=[theirs.pk])
    assert selectors.unread_notification_count(user=p.supplier_owner) == 0


@pytest.mark.parametrize("kind", NotificationKind.values)
def test_every_kind_has_a_sentence_with_its_params(kind):
    user = make_user()
    notification = notify_services.notification_create(
        recipient=user,
        kind=kind,
        params={"company": "ACME <Ltd>", "subject": "Steel flasks"},
        link="/en/messages/",
    )
    text = selectors.notification_text(notification)
    assert "Steel flasks" in text
    assert text != "Notification"
    assert selectors.notification_link(notification, "zh-hant") == "/zh-hant/messages/"

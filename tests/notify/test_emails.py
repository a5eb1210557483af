import smtplib
from unittest import mock

import pytest
from django.core.mail.backends.locmem import EmailBackend
from django.db import transaction
from django.utils.translation import gettext_lazy
from django_tasks.backends.immediate import ImmediateBackend
from django_tasks.signals import task_enqueued

from tradepost.notify import tasks
from tradepost.notify.services import queue_email, render_email

pytestmark = pytest.mark.django_db


def _queue(language="en", **extra):
    queue_email(
        to="buyer@example.com",
        subject=extra.pop("subject", "Hello"),
        template="password_reset",
        context={"user": None, "link": "http://testserver/x", **extra},
        language=language,
    )


def test_email_is_sent_only_after_commit(mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            _queue()
        assert mailoutbox == []
    assert len(callbacks) == 1
    callbacks[0]()
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["buyer@example.com"]
    assert message.subject == "Hello"
    assert "http://testserver/x" in message.body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html"
    assert 'href="http://testserver/x"' in html


def test_nothing_is_sent_when_the_transaction_rolls_back(
    mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                _queue()
                raise RuntimeError("boom")
        except RuntimeError:
            pass
    assert mailoutbox == []


def test_email_is_rendered_in_the_recipients_language(
    mailoutbox, django_capture_on_commit_callbacks
):
    # Django ships a zh-hans translation of this sentence, so the subject proves that the
    # rendering ran with the recipient's language active, whatever the request's language is.
    with django_capture_on_commit_callbacks(execute=True):
        _queue(language="zh-hans", subject=gettext_lazy("Enter a valid email address."))
    message = mailoutbox[0]
    assert message.subject != "Enter a valid email address."
    assert "有效" in message.subject
    assert message.extra_headers["Content-Language"] == "zh-hans"
    assert '<html lang="zh-hans">' in message.alternatives[0][0]


def test_unknown_language_falls_back_to_english(mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _queue(language="xx-evil", subject=gettext_lazy("Enter a valid email address."))
    assert mailoutbox[0].subject == "Enter a valid email address."
    assert mailoutbox[0].extra_headers["Content-Language"] == "en"


def test_subject_newlines_are_removed():
    message = render_email(
        subject="Line one\nBcc: x@example.com",
        template="password_reset",
        context={"user": None, "link": "x"},
        language="en",
    )
    assert "\n" not in message["subject"]


def _flaky_backend(failures: int):
    calls = {"n": 0}
    original = EmailBackend.send_messages

    def send_messages(self, messages):
        calls["n"] += 1
        if calls["n"] <= failures:
            raise smtplib.SMTPServerDisconnected("server went away")
        return original(self, messages)

    return calls, send_messages


def test_smtp_errors_are_retried(mailoutbox, django_capture_on_commit_callbacks):
    calls, send_messages = _flaky_backend(failures=2)
    with (
        mock.patch.object(EmailBackend, "send_messages", send_messages),
        django_capture_on_commit_callbacks(execute=True),
    ):
        _queue()
    assert calls["n"] == 3
    assert len(mailoutbox) == 1


def test_retries_stop_after_five(mailoutbox, django_capture_on_commit_callbacks):
    calls, send_messages = _flaky_backend(failures=100)
    with (
        mock.patch.object(EmailBackend, "send_messages", send_messages),
        django_capture_on_commit_callbacks(execute=True),
    ):
        _queue()
    assert calls["n"] == 1 + tasks.MAX_RETRIES
    assert mailoutbox == []


def test_retries_are_deferred_with_backoff_when_the_backend_can_defer(
    mailoutbox, django_capture_on_commit_callbacks
):
    _calls, send_messages = _flaky_backend(failures=1)
    enqueued = []

    def record(sender, task_result, **kwargs):
        enqueued.append(task_result)

    task_enqueued.connect(record)
    try:
        with (
            mock.patch.object(EmailBackend, "send_messages", send_messages),
            mock.patch.object(ImmediateBackend, "supports_defer", True),
            django_capture_on_commit_callbacks(execute=True),
        ):
            _queue()
    finally:
        task_enqueued.disconnect(record)
    assert [r.kwargs["attempt"] for r in enqueued] == [0, 1]
    assert enqueued[0].task.run_after is None
    assert enqueued[1].task.run_after is not None
    assert len(mailoutbox) == 1


def test_retry_delay_grows():
    assert [tasks.EMAIL_BACKOFF.delay(n).total_seconds() / 60 for n in range(1, 6)] == [
        1,
        2,
        4,
        8,
        16,
    ]

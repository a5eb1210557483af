"""Background tasks of the notify app: rendering and sending queued emails, with retries."""

from __future__ import annotations

import logging
import smtplib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone
from django_tasks import task

from tradepost.core.queueing import enqueue_on_commit
from tradepost.core.retries import Backoff
from tradepost.notify.emails import machine_context, render_email

logger = logging.getLogger(__name__)

#: How many times a failed send is tried again after the first attempt.
MAX_RETRIES = 5
#: The wait before retry n (1-based): 1, 2, 4, 8, 16 minutes.
EMAIL_BACKOFF = Backoff(base=timedelta(minutes=1))


class EmailDeliveryFailed(RuntimeError):
    """The mail server refused the message on every attempt."""


@task()
def render_and_send_email(
    *,
    to: str,
    subject: str,
    template: str,
    context: dict[str, Any],
    language: str,
    machine: dict[str, list[Any]],
) -> str:
    """Render an email quoting texts to be machine-translated (`notify.emails`), once their
    translations are stored, and send it (with `send_email`'s retries)."""
    message = render_email(
        subject=subject,
        template=template,
        context={**context, **machine_context(machine)},
        language=language,
    )
    return deliver_email(
        to=to,
        attempt=0,
        subject=message["subject"],
        text=message["text"],
        html=message["html"],
        language=message["language"],
    )


@task()
def send_email(
    *,
    to: str,
    subject: str,
    text: str,
    html: str,
    language: str,
    attempt: int,
    headers: dict[str, str] | None = None,
) -> str:
    """Send one rendered email; when the mail server fails, schedule another try (see
    `deliver_email`)."""
    return deliver_email(
        to=to,
        subject=subject,
        text=text,
        html=html,
        language=language,
        attempt=attempt,
        headers=headers,
    )


def deliver_email(
    *,
    to: str,
    subject: str,
    text: str,
    html: str,
    language: str,
    attempt: int,
    headers: dict[str, str] | None = None,
) -> str:
    """Send one rendered email; when the mail server fails, schedule another try.

    The arguments are plain strings so the task survives any backend. A backend that can
    defer (the database queue) runs the retry after a growing delay; one that cannot (the
    immediate backend of the tests) runs it at once. `headers` are added to the message
    (a digest's List-Unsubscribe).
    """
    email = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={"Content-Language": language, **(headers or {})},
    )
    email.attach_alternative(html, "text/html")
    try:
        email.send()
    except (smtplib.SMTPException, OSError) as exc:
        if attempt >= MAX_RETRIES:
            logger.error("Email to %s failed after %d attempts: %s", to, attempt + 1, exc)
            raise EmailDeliveryFailed(str(exc)) from exc
        next_attempt = attempt + 1
        logger.warning("Email to %s failed on attempt %d, will retry: %s", to, attempt + 1, exc)
        enqueue_on_commit(
            send_email,
            run_after=timezone.now() + EMAIL_BACKOFF.delay(next_attempt),
            to=to,
            subject=subject,
            text=text,
            html=html,
            language=language,
            attempt=next_attempt,
            headers=headers,
        )
        return "retry-scheduled"
    return "sent"

"""The email queue: render in the recipient's language now, send from the worker after commit.

`queue_email` renders the subject, the plain-text body and the HTML body of a template pair
(`emails/<template>.txt` and `emails/<template>.html`) with the recipient's language active, and
enqueues `tradepost.notify.tasks.send_email` when the surrounding transaction commits, so
nothing is sent for a write that rolled back.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import Promise

from tradepost.core.languages import normalise_ui_language
from tradepost.notify.tasks import send_email


def render_email(
    *, subject: str | Promise, template: str, context: dict[str, Any], language: str
) -> dict[str, str]:
    """Subject, text and HTML of an email, rendered with `language` active."""
    language = normalise_ui_language(language)
    with translation.override(language):
        full_context = {"SITE_URL": settings.SITE_URL, "email_language": language, **context}
        rendered_subject = " ".join(str(subject).split())
        text = render_to_string(f"emails/{template}.txt", full_context)
        html = render_to_string(f"emails/{template}.html", full_context)
    return {"subject": rendered_subject, "text": text, "html": html, "language": language}


def queue_email(
    *, to: str, subject: str | Promise, template: str, context: dict[str, Any], language: str
) -> None:
    """Render an email in `language` and send it once the current transaction commits.

    `subject` may be a lazy translation (gettext_lazy); it is evaluated in `language`.
    Links in `context` must be absolute (build them with `absolute_url`).
    """
    message = render_email(subject=subject, template=template, context=context, language=language)
    transaction.on_commit(lambda: send_email.enqueue(to=to, attempt=0, **message))


def absolute_url(path: str) -> str:
    """`path` (from reverse()) prefixed with the site's public address, for emails."""
    return settings.SITE_URL + path

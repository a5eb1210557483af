"""The email queue: render in the recipient's language now (or, for an email quoting texts to
be machine-translated, in the worker: `notify.emails`), send from the worker after commit.

`queue_email` renders the subject, the plain-text body and the HTML body of a template pair
(`emails/<template>.txt` and `emails/<template>.html`) with the recipient's language active, and
enqueues `tradepost.notify.tasks.send_email` when the surrounding transaction commits, so
nothing is sent for a write that rolled back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise

from tradepost.core.languages import normalise_ui_language
from tradepost.core.queueing import enqueue_on_commit
from tradepost.notify.emails import Quoted, quote, render_email
from tradepost.notify.tasks import render_and_send_email, send_email


def queue_email(
    *,
    to: str,
    subject: str | Promise,
    template: str,
    context: dict[str, Any],
    language: str,
    quoted: Mapping[str, Quoted] | None = None,
) -> None:
    """Render an email in `language` and send it once the current transaction commits.

    `subject` may be a lazy translation (gettext_lazy); it is evaluated in `language`.
    Links in `context` must be absolute (build them with `link_in`).

    `quoted` names the texts the email quotes that someone wrote (a message, a request's
    title): each is put in the context as the reader reads it (`notify.emails.quote`), and
    one written in another language is also machine-translated into `language` as
    `<name>_machine`. Such an email is rendered by the worker once the translations are
    stored, so its context must then be plain data (numbers and dates become strings).
    """
    language = normalise_ui_language(language)
    if quoted:
        texts, machine = quote(quoted, language)
        context = {**context, **texts}
    if quoted and machine:
        with translation.override(language):
            rendered_subject = str(subject)
        enqueue_on_commit(
            render_and_send_email,
            to=to,
            subject=rendered_subject,
            template=template,
            context=json.loads(json.dumps(context, cls=DjangoJSONEncoder)),
            language=language,
            machine=machine,
        )
        return
    message = render_email(subject=subject, template=template, context=context, language=language)
    enqueue_on_commit(
        send_email,
        to=to,
        subject=message["subject"],
        text=message["text"],
        html=message["html"],
        language=message["language"],
        attempt=0,
    )


def absolute_url(path: str) -> str:
    """`path` (from reverse()) prefixed with the site's public address, for emails."""
    return settings.SITE_URL + path


def link_in(language: str, viewname: str, *, args: Any = None, kwargs: Any = None) -> str:
    """The absolute address of the page `viewname` in `language`: the link an email or a
    notice gives its recipient, to the page in their own language."""
    with translation.override(language):
        return absolute_url(reverse(viewname, args=args, kwargs=kwargs))


# --- in-app notifications and email preferences ---------------------------------------------

UNSUBSCRIBE_SALT = "tradepost.notify.unsubscribe"


def notification_create(
    *, recipient: Any, kind: str, params: dict[str, Any], link: str, now: Any = None
) -> Any:
    """Add one notification for `recipient`, inside the caller's transaction.

    `link` is a site path as reversed in English (`/en/...`); pages show it in the reader's
    language. `params` fill the kind's sentence (see notify.selectors.notification_text).
    """
    from django.utils import timezone

    from tradepost.notify.models import Notification

    notification = Notification(
        recipient=recipient,
        kind=kind,
        params=params,
        link=link,
        created_at=now or timezone.now(),
    )
    notification.full_clean()
    notification.save()
    return notification


#: Larger numbers cannot be ids (and overflow SQLite's integers in a query).
MAX_NOTIFICATION_ID = 2**63 - 1


def notifications_mark_read(*, actor: Any, ids: list[int] | None = None) -> int:
    """Mark the actor's notifications read (all of them, or those in `ids`); others' ids are
    ignored. Returns how many changed."""
    from django.utils import timezone

    from tradepost.notify.models import Notification

    with transaction.atomic():
        unread = Notification.objects.filter(recipient_id=actor.pk, read_at__isnull=True)
        if ids is not None:
            unread = unread.filter(
                pk__in=[i for i in ids if isinstance(i, int) and 0 < i <= MAX_NOTIFICATION_ID]
            )
        return unread.update(read_at=timezone.now())


def email_preference_set(*, user: Any, email_messages: bool) -> None:
    """Switch emails about inquiries and messages on or off for `user`."""
    from tradepost.notify.models import NotificationPreference

    with transaction.atomic():
        NotificationPreference.objects.update_or_create(
            user_id=user.pk, defaults={"email_messages": bool(email_messages)}
        )


def unsubscribe_token(user: Any) -> str:
    """A signed token that switches off message emails for `user` without signing in."""
    return signing.dumps({"u": user.pk, "e": user.email}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_with_token(*, token: str) -> Any:
    """Switch off message emails for the user the token names; returns the user, or None when
    the token is forged, damaged or the address changed since it was made."""
    if not token or len(token) > 500:
        return None
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    user = get_user_model().objects.filter(pk=data["u"], email=str(data.get("e", ""))).first()
    if user is None:
        return None
    email_preference_set(user=user, email_messages=False)
    return user

"""Reads of in-app notifications and email preferences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, override

from tradepost.notify.models import Notification, NotificationKind, NotificationPreference


def notifications_for(*, user: Any) -> QuerySet[Notification]:
    """The user's notifications, newest first."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Notification.objects.none()
    return Notification.objects.filter(recipient_id=user.pk).order_by("-created_at", "-id")


def unread_notification_count(*, user: Any) -> int:
    if user is None or not getattr(user, "is_authenticated", False):
        return 0
    return Notification.objects.filter(recipient_id=user.pk, read_at__isnull=True).count()


#: The membership app's sentences (params "subject", the plan's name, and "date", both
#: already in the reader's language).
MEMBERSHIP_TEXTS: dict[str, Callable[[], str]] = {
    NotificationKind.MEMBERSHIP_ENDING: lambda: _("Your %(plan)s membership ends on %(date)s."),
    NotificationKind.MEMBERSHIP_EXPIRED: lambda: _(
        "Your %(plan)s membership has ended: your company is on the free plan, its listings stay."
    ),
    NotificationKind.MEMBERSHIP_PAID: lambda: _(
        "Payment received: your %(plan)s membership runs until %(date)s."
    ),
}


#: The trust app's moderation sentences (params "subject", what was acted on, and "reason",
#: both in the company's language).
MODERATION_TEXTS: dict[str, Callable[[], str]] = {
    NotificationKind.MODERATION_HIDDEN: lambda: _(
        "“%(subject)s” was hidden by moderation: %(reason)s"
    ),
    NotificationKind.MODERATION_RESTORED: lambda: _(
        "“%(subject)s” is no longer hidden by moderation."
    ),
    NotificationKind.MODERATION_WARNING: lambda: _(
        "A warning from the operators about “%(subject)s”: %(reason)s"
    ),
    NotificationKind.COMPANY_SUSPENDED: lambda: _("%(subject)s is suspended: %(reason)s"),
    NotificationKind.COMPANY_BANNED: lambda: _("%(subject)s is banned from Tradepost: %(reason)s"),
    NotificationKind.COMPANY_REINSTATED: lambda: _(
        "The suspension of %(subject)s is lifted: it can trade again."
    ),
}


def notification_text(notification: Notification) -> str:
    """The notification's sentence in the active language."""
    params = notification.params or {}
    company = str(params.get("company", ""))
    subject = str(params.get("subject", ""))
    if notification.kind == NotificationKind.NEW_INQUIRY:
        return _("New inquiry from %(company)s: %(subject)s") % {
            "company": company,
            "subject": subject,
        }
    if notification.kind == NotificationKind.NEW_MESSAGE:
        return _("New message from %(company)s in “%(subject)s”") % {
            "company": company,
            "subject": subject,
        }
    if notification.kind == NotificationKind.NEW_QUOTATION:
        return _("New quotation from %(company)s for “%(subject)s”") % {
            "company": company,
            "subject": subject,
        }
    if notification.kind == NotificationKind.QUOTATION_AWARDED:
        return _("Your quotation for “%(subject)s” was selected.") % {"subject": subject}
    if notification.kind == NotificationKind.QUOTATION_NOT_SELECTED:
        return _("Another quotation was chosen for “%(subject)s”.") % {"subject": subject}
    if notification.kind == NotificationKind.REQUEST_MATCHED:
        if params.get("first_look"):
            # A plan's first look (sourcing.first_look): told before the other suppliers.
            return _("First look: a new buying request matches your products: %(subject)s") % {
                "subject": subject
            }
        return _("A new buying request matches your products: %(subject)s") % {"subject": subject}
    if notification.kind == NotificationKind.ALERT_MATCHED:
        count = int(params.get("count") or 0)
        if subject:
            return ngettext(
                "%(count)d new match for your saved search “%(subject)s”.",
                "%(count)d new matches for your saved search “%(subject)s”.",
                count,
            ) % {"count": count, "subject": subject}
        return ngettext(
            "%(count)d new match for your saved search.",
            "%(count)d new matches for your saved search.",
            count,
        ) % {"count": count}
    if notification.kind == NotificationKind.REQUEST_EXPIRING:
        return _("Your buying request “%(subject)s” closes soon.") % {"subject": subject}
    if notification.kind == NotificationKind.VERIFICATION_APPROVED:
        return _("%(subject)s is verified: the badge now shows on its public page.") % {
            "subject": subject
        }
    if notification.kind == NotificationKind.VERIFICATION_REJECTED:
        return _("The verification of %(subject)s was not approved: %(reason)s") % {
            "subject": subject,
            "reason": str(params.get("reason", "")),
        }
    if notification.kind == NotificationKind.COMPANY_SUSPENDED and params.get("date"):
        return _("%(subject)s is suspended until %(date)s: %(reason)s") % {
            "subject": subject,
            "date": str(params["date"]),
            "reason": str(params.get("reason", "")),
        }
    if notification.kind in MODERATION_TEXTS:
        return MODERATION_TEXTS[notification.kind]() % {
            "subject": subject,
            "reason": str(params.get("reason", "")),
        }
    if notification.kind == NotificationKind.REVIEW_RECEIVED:
        return _("%(company)s reviewed your company for “%(subject)s”: %(rating)s out of 5.") % {
            "company": company,
            "subject": subject,
            "rating": str(params.get("rating", "")),
        }
    if notification.kind == NotificationKind.REVIEW_REPLIED:
        return _("%(company)s replied to your review of “%(subject)s”.") % {
            "company": company,
            "subject": subject,
        }
    if notification.kind == NotificationKind.REPORT_DECIDED:
        if params.get("outcome") == "actioned":
            return _(
                "Thank you: the operators reviewed your report about “%(subject)s” and acted on it."
            ) % {"subject": subject}
        return _(
            "The operators reviewed your report about “%(subject)s” and found nothing against "
            "the rules."
        ) % {"subject": subject}
    if notification.kind in MEMBERSHIP_TEXTS:
        return MEMBERSHIP_TEXTS[notification.kind]() % {
            "plan": subject,
            "date": str(params.get("date", "")),
        }
    return _("Notification")


def notification_link(notification: Notification, language: str) -> str:
    """The notification's link in `language`'s URL prefix."""
    if not notification.link:
        return ""
    try:
        with override("en"):
            match = resolve(notification.link)
        with override(language):
            return reverse(match.view_name, args=match.args, kwargs=match.kwargs)
    except (Resolver404, NoReverseMatch):
        return notification.link


def wants_message_emails(user: Any) -> bool:
    """Whether `user` wants emails about inquiries and messages (yes unless switched off)."""
    preference = NotificationPreference.objects.filter(user_id=user.pk).first()
    return preference is None or preference.email_messages

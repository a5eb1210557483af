"""What the sourcing app tells people: in-app notifications to every active member of a
company, and emails in the recipient's language (the services' and the tasks' alike)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils import translation

from tradepost.companies.models import Company, Membership
from tradepost.core.languages import normalise_ui_language
from tradepost.messaging.machine_texts import message_language
from tradepost.notify.emails import Quoted
from tradepost.notify.services import link_in, notification_create, queue_email
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus
from tradepost.translation.engines import Kind

#: Characters of a quotation's note its email quotes (the comparison page has the rest).
NOTE_EXCERPT_LENGTH = 500


def notify_company(
    *,
    company_id: int,
    kind: str,
    subject: str,
    link: tuple[str, int],
    from_company: Company | None = None,
    now: datetime | None = None,
) -> None:
    """One notification for every active member of a company, inside the caller's
    transaction. `from_company` is named in each member's own language."""
    name, pk = link
    with translation.override("en"):
        path = reverse(name, args=[pk])
    members = (
        Membership.objects.filter(company_id=company_id, user__is_active=True)
        .select_related("user")
        .order_by("pk")
    )
    for member in members:
        params = {"subject": subject}
        if from_company is not None:
            language = normalise_ui_language(member.user.preferred_language)
            params["company"] = from_company.name_for(language)
        notification_create(recipient=member.user, kind=kind, params=params, link=path, now=now)


def email_user(
    user: Any,
    *,
    template: str,
    subject: Any,
    context: dict[str, Any],
    quoted: dict[str, Quoted] | None = None,
) -> None:
    """Queue an email to `user` in their language; `context["link_path"]` (a URL name and an
    id) becomes the absolute `link` in that language; `quoted` texts are read as the
    pages read them (`notify.services.queue_email`)."""
    language = normalise_ui_language(user.preferred_language)
    name, pk = context.pop("link_path")
    link = link_in(language, name, args=[pk])
    queue_email(
        to=user.email,
        subject=subject,
        template=template,
        context={**context, "link": link},
        language=language,
        quoted=quoted,
    )


def request_title_quoted(request: BuyingRequest) -> Quoted:
    """A request's title as an email quotes it (machine-translated for a reader of another
    language, as its pages show it)."""
    return Quoted(request.title, request.original_language or "en", Kind.TITLE)


def email_request_poster(
    request: BuyingRequest,
    *,
    template: str,
    subject: Any,
    context: dict[str, Any] | None = None,
    supplier: Company | None = None,
    quotation: Quotation | None = None,
) -> None:
    """Email the person who posted `request` (when still active) about it, with a link to
    its comparison page; `supplier`, when given, is named in their language, and the note of
    `quotation`, when given, is quoted as `note`."""
    user = request.created_by
    if user is None or not user.is_active:
        return
    context = dict(context or {})
    if supplier is not None:
        language = normalise_ui_language(user.preferred_language)
        context["supplier_name"] = supplier.name_for(language)
    context["link_path"] = ("sourcing:compare", request.pk)
    quoted = {"request_title": request_title_quoted(request)}
    if quotation is not None and quotation.message:
        quoted["note"] = Quoted(
            quotation.message,
            message_language(quotation.message),
            Kind.MESSAGE,
            limit=NOTE_EXCERPT_LENGTH,
        )
    email_user(user, template=template, subject=subject, context=context, quoted=quoted)


def email_quoting_supplier(
    quotation: Quotation, *, request: BuyingRequest, template: str, subject: Any
) -> None:
    """Email the person who wrote `quotation` (when still active) about its request."""
    user = quotation.created_by
    if user is None or not user.is_active:
        return
    email_user(
        user,
        template=template,
        subject=subject,
        context={
            "won": quotation.status == QuotationStatus.AWARDED,
            "status": quotation.status,
            "link_path": ("sourcing:request_detail", request.pk),
        },
        quoted={"request_title": request_title_quoted(request)},
    )

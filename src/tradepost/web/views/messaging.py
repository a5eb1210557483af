"""Inquiry, inbox, conversation and notification pages under /<lang>/messages/.

A conversation of other companies answers 404, like a missing one. The unsubscribe page
works without signing in: the signed token in its link says whose emails to stop.
"""

from __future__ import annotations

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tradepost.accounts.selectors import is_operator
from tradepost.catalog.public_companies import get_public_company
from tradepost.catalog.selectors import MAX_ID, get_published_product
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_described
from tradepost.core.downloads import uploaded_file_response
from tradepost.core.errors import ErrorKind
from tradepost.messaging import selectors, services
from tradepost.messaging.errors import ConversationNotFound, MessagingError
from tradepost.messaging.forms import InquiryForm, ReplyForm
from tradepost.messaging.machine_texts import attach_message_texts
from tradepost.notify import selectors as notify_selectors
from tradepost.notify import services as notify_services
from tradepost.sourcing import selectors as sourcing_selectors
from tradepost.web.guards import actor
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest

CONVERSATIONS_PER_PAGE = 30
NOTIFICATIONS_PER_PAGE = 50


def _int_param(value: str | None) -> int | None:
    if value is None or not value.isdigit() or not 0 < int(value) <= MAX_ID:
        return None
    return int(value)


@login_required
def inquiry_create(request: AuthenticatedRequest) -> HttpResponse:
    product = None
    company: Company | None = None
    product_id = _int_param(request.GET.get("product"))
    if product_id is not None:
        product = get_published_product(product_id)
        if product is None:
            raise Http404
        company = product.company
    else:
        slug = request.GET.get("company", "")
        company = get_public_company(slug) if slug and len(slug) <= 80 else None
        if company is None:
            raise Http404
    mine = actor(request).company
    form = InquiryForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST" and mine is not None and form.is_valid():
        try:
            conversation = services.inquiry_send(
                actor=request.user,
                product=product,
                company=None if product else company,
                quantity=form.cleaned_data["quantity"],
                unit=form.cleaned_data["unit"],
                message=form.cleaned_data["message"],
                attachments=form.cleaned_data["attachments"],
            )
        except MessagingError as error:
            show_on_form(form, error)
            status = 429 if error.kind is ErrorKind.RATE_LIMITED else 400
        else:
            flash.success(request, _("Your inquiry was sent."))
            return redirect("messaging:detail", conversation_id=conversation.pk)
    elif request.method == "POST":
        status = 400
    context = {
        "form": form,
        "product": product,
        "company": company,
        "company_name": company.name_for(get_language() or "en"),
        "acting_company": mine,
        "own_company": mine is not None and mine.pk == company.pk,
    }
    return render(request, "messaging/inquiry_form.html", context, status=status)


@login_required
def inbox(request: AuthenticatedRequest) -> HttpResponse:
    mine = actor(request).company
    page = paginate(request, selectors.inbox(user=request.user), CONVERSATIONS_PER_PAGE)
    language = get_language() or "en"
    rows = []
    for conversation in page.object_list:
        own = mine.pk if mine else None
        other = (
            conversation.supplier_company
            if own == conversation.buyer_company_id
            else conversation.buyer_company
        )
        rows.append(
            {
                "conversation": conversation,
                "other_name": selectors.party_name(
                    conversation, other, viewer_company_id=own, language=language
                ),
                "is_buyer": own == conversation.buyer_company_id,
            }
        )
    context = {"page": page, "rows": rows, "acting_company": mine}
    return render(request, "messaging/inbox.html", context)


@login_required
def detail(request: AuthenticatedRequest, conversation_id: int) -> HttpResponse:
    conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
    writes_for = selectors.participant_company_id(request.user, conversation)
    can_write = writes_for is not None
    form = ReplyForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                services.message_send(
                    actor=request.user,
                    conversation=conversation,
                    body=form.cleaned_data["body"],
                    attachments=form.cleaned_data["attachments"],
                )
            except MessagingError as error:
                show_on_form(form, error, fields={"message": "body"})
                status = 429 if error.kind is ErrorKind.RATE_LIMITED else 400
            else:
                return redirect("messaging:detail", conversation_id=conversation.pk)
        else:
            status = 400
    services.conversation_mark_read(actor=request.user, conversation=conversation)
    language = get_language() or "en"
    # Operators read every name (they moderate); a supplier does not read a hidden buyer's.
    viewer_is_operator = is_operator(request.user)
    viewer = conversation.buyer_company_id if viewer_is_operator else writes_for
    # Each message in the reader's language: translated by machine, or in their Chinese script.
    conversation_messages = list(selectors.conversation_messages(conversation))
    attach_message_texts(conversation_messages, language)
    context = {
        "conversation": conversation,
        "conversation_messages": conversation_messages,
        "buyer_name": selectors.party_name(
            conversation, conversation.buyer_company, viewer_company_id=viewer, language=language
        ),
        "supplier_name": conversation.supplier_company.name_for(language),
        "buyer_people_shown": conversation.shows_buyer_to(viewer),
        "buyer_may_show_name": conversation.buyer_hidden
        and writes_for == conversation.buyer_company_id,
        "buyer_described": company_described(conversation.buyer_company, language),
        "buying_request_id": sourcing_selectors.request_id_of_conversation(
            conversation_id=conversation.pk
        ),
        "form": form,
        "can_write": can_write,
        "writes_for": writes_for,
        "viewer_is_operator": viewer_is_operator,
    }
    return render(request, "messaging/detail.html", context, status=status)


@login_required
def show_buyer(request: AuthenticatedRequest, conversation_id: int) -> HttpResponse:
    """The buyer is asked first (GET: what the supplier will see), then shows its company
    name and people to the supplier (POST)."""
    conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
    if selectors.participant_company_id(request.user, conversation) != (
        conversation.buyer_company_id
    ):
        raise ConversationNotFound()  # the buyer's members only: nobody else finds this page
    if not conversation.buyer_hidden:
        return redirect("messaging:detail", conversation_id=conversation.pk)
    if request.method == "POST":
        try:
            services.conversation_show_buyer(actor=request.user, conversation=conversation)
        except MessagingError as error:
            flash_refusal(request, error)
        else:
            flash.success(request, _("The supplier now sees your company name."))
        return redirect("messaging:detail", conversation_id=conversation.pk)
    language = get_language() or "en"
    context = {
        "conversation": conversation,
        "buyer_name": conversation.buyer_company.name_for(language),
        "described": company_described(conversation.buyer_company, language),
        "supplier_name": conversation.supplier_company.name_for(language),
    }
    return render(request, "messaging/show_buyer.html", context)


@login_required
def attachment(
    request: AuthenticatedRequest, conversation_id: int, attachment_id: int
) -> FileResponse:
    """An attachment, for those who may see its conversation; 404 for everybody else."""
    item = selectors.access_conversation_attachment(
        user=request.user, conversation_id=conversation_id, attachment_id=attachment_id
    )
    return uploaded_file_response(
        item.file, name=item.original_name, content_type=item.content_type, as_attachment=True
    )


@login_required
def notifications(request: AuthenticatedRequest) -> HttpResponse:
    page = paginate(
        request, notify_selectors.notifications_for(user=request.user), NOTIFICATIONS_PER_PAGE
    )
    language = get_language() or "en"
    items = [
        {
            "notification": item,
            "text": notify_selectors.notification_text(item),
            "link": notify_selectors.notification_link(item, language),
        }
        for item in page.object_list
    ]
    context = {
        "page": page,
        "items": items,
        "email_messages": notify_selectors.wants_message_emails(request.user),
    }
    return render(request, "messaging/notifications.html", context)


@login_required
@require_POST
def email_preference(request: AuthenticatedRequest) -> HttpResponse:
    """Switch emails about inquiries and messages on or off (a checkbox on the centre)."""
    enabled = request.POST.get("email_messages") == "on"
    notify_services.email_preference_set(user=request.user, email_messages=enabled)
    if enabled:
        flash.success(request, _("You will receive emails about inquiries and messages."))
    else:
        flash.success(request, _("You will no longer receive emails about inquiries and messages."))
    return redirect("messaging:notifications")


@login_required
@require_POST
def notifications_read_all(request: AuthenticatedRequest) -> HttpResponse:
    notify_services.notifications_mark_read(actor=request.user)
    return redirect("messaging:notifications")


def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks to confirm (mail scanners follow links); POST switches the emails off."""
    if request.method == "POST":
        user = notify_services.unsubscribe_with_token(token=token)
        status = 200 if user is not None else 400
        return render(
            request,
            "messaging/unsubscribe.html",
            {"done": user is not None, "invalid": user is None},
            status=status,
        )
    return render(request, "messaging/unsubscribe.html", {"done": False, "invalid": False})

"""Buying requests and quotations: the board, a request, posting, quoting and comparing.

Views parse the request, fetch objects through the `access_*` helpers (another company's
object is a 404, like a missing one), call one service or selector and render.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tradepost.catalog.forms import category_choices, plain_number
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_described
from tradepost.core.countries import country_choices, country_name
from tradepost.core.currencies import COMMON_CURRENCIES
from tradepost.core.downloads import uploaded_file_response
from tradepost.messaging.errors import MessagingError
from tradepost.money.display import AS_LISTED
from tradepost.search.filters import POSTED_WITHIN_DAYS, parse_request_filters
from tradepost.sourcing import selectors, services
from tradepost.sourcing.errors import SourcingError
from tradepost.sourcing.forms import (
    AttachmentForm,
    BuyingRequestForm,
    DeclineForm,
    QuotationForm,
    price_tier_formset,
)
from tradepost.sourcing.machine_texts import attach_quotation_texts, attach_request_texts
from tradepost.sourcing.models import BuyingRequest, Quotation
from tradepost.web.display_currency import viewer_display_currency
from tradepost.web.guards import actor, company_required
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form

PER_PAGE = 20


def _decimal(number: float | None) -> Decimal | None:
    return None if number is None else Decimal(str(number))


def _decorate(requests: Any, language: str) -> None:
    """What a viewer reads: the request's words in their language (`text`: their script, or
    a machine translation), category, destination and the buyer (country unless revealed)."""
    attach_request_texts(requests, language)
    for item in requests:
        item.category_name = item.category.name_for(language)
        item.destination_name = country_name(item.destination_country, language)
        item.buyer_country_name = country_name(item.buyer.country, language)
        item.buyer_described = company_described(item.buyer, language)


def request_board(request: HttpRequest) -> HttpResponse:
    language = get_language()
    # The parameters of the board API and the search (docs/adr/0014-one-pagination-style.md),
    # read by the search's parser: out of range or malformed, a value is dropped or bounded.
    parsed = parse_request_filters(request.GET)
    filters = selectors.BoardFilters(
        category_id=parsed.category_id,
        destinations=parsed.destinations,
        quantity_min=_decimal(parsed.quantity_min),
        quantity_max=_decimal(parsed.quantity_max),
        posted_within_days=parsed.posted_within_days,
    )
    page = paginate(request, selectors.open_requests(filters=filters), PER_PAGE)
    _decorate(page.object_list, language)
    return render(
        request,
        "sourcing/board.html",
        {
            "page": page,
            "filters": filters,
            "posted_choices": POSTED_WITHIN_DAYS,
            "category_choices": category_choices(language),
            "country_choices": country_choices(language),
        },
    )


def request_detail(request: HttpRequest, pk: int) -> HttpResponse:
    language = get_language()
    buying_request = selectors.access_request(user=request.user, request_id=pk)
    _decorate([buying_request], language)
    company = actor(request).company
    is_buyer = company is not None and company.pk == buying_request.buyer_id
    return render(
        request,
        "sourcing/request_detail.html",
        {
            "buying_request": buying_request,
            "is_buyer": is_buyer,
            "quotation_count": selectors.visible_quotation_count(
                user=request.user, buying_request=buying_request
            ),
            "own_quotation": selectors.own_quotation(
                user=request.user, buying_request=buying_request
            ),
            "can_quote": selectors.can_quote(user=request.user, buying_request=buying_request),
            "attachments": selectors.attachments_of_request(buying_request=buying_request),
            "attachment_form": AttachmentForm(),
        },
    )


@company_required(gettext_lazy("Create your company profile before posting a buying request."))
@require_http_methods(["GET", "POST"])
def request_create(request: HttpRequest, company: Company) -> HttpResponse:
    form = BuyingRequestForm(request.POST or None, language=get_language())
    if request.method == "POST" and form.is_valid():
        try:
            created = services.request_create(actor=request.user, **form.service_fields())
        except SourcingError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("Your buying request is posted."))
            return redirect("sourcing:request_detail", pk=created.pk)
    return render(request, "sourcing/request_form.html", {"form": form, "buying_request": None})


def _initial(buying_request: BuyingRequest) -> dict[str, Any]:
    return {
        "title": buying_request.title,
        "original_language": buying_request.original_language,
        "category_id": buying_request.category_id,
        "description": buying_request.description,
        "quantity": plain_number(buying_request.quantity),
        "unit": buying_request.unit,
        "target_unit_price": plain_number(buying_request.target_unit_price),
        "target_currency": buying_request.target_currency,
        "destination_country": buying_request.destination_country,
        "destination_port": buying_request.destination_port,
        "preferred_incoterm": buying_request.preferred_incoterm,
        "required_certifications": ", ".join(buying_request.required_certifications),
        "deadline": timezone.localtime(buying_request.deadline).date().isoformat(),
        "sealed": buying_request.sealed,
        "reveal_identity": buying_request.reveal_identity,
    }


@login_required
@require_http_methods(["GET", "POST"])
def request_update(request: HttpRequest, pk: int) -> HttpResponse:
    buying_request = selectors.access_request_for_buyer(user=request.user, request_id=pk)
    locked = buying_request.quotation_count > 0
    form = BuyingRequestForm(
        request.POST or None, initial=_initial(buying_request), language=get_language()
    )
    if request.method == "POST" and form.is_valid():
        only = set(services.FIELDS_EDITABLE_AFTER_QUOTES) if locked else None
        fields = form.service_fields(only=only)
        if locked and fields.get("deadline") == _initial(buying_request)["deadline"]:
            fields.pop("deadline")
        try:
            services.request_update(actor=request.user, buying_request=buying_request, **fields)
        except SourcingError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("Your buying request is saved."))
            return redirect("sourcing:request_detail", pk=buying_request.pk)
    return render(
        request,
        "sourcing/request_form.html",
        {"form": form, "buying_request": buying_request, "locked": locked},
    )


@login_required
@require_POST
def request_close(request: HttpRequest, pk: int) -> HttpResponse:
    buying_request = selectors.access_request_for_buyer(user=request.user, request_id=pk)
    try:
        services.request_close(actor=request.user, buying_request=buying_request)
    except SourcingError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The request is closed."))
    return redirect("sourcing:request_detail", pk=buying_request.pk)


@company_required()
def my_requests(request: HttpRequest, company: Company) -> HttpResponse:
    page = paginate(request, selectors.requests_of_company(company_id=company.pk), PER_PAGE)
    language = get_language()
    for item in page.object_list:
        item.category_name = item.category.name_for(language)  # type: ignore[attr-defined]
    return render(request, "sourcing/my_requests.html", {"page": page})


@company_required()
def my_quotations(request: HttpRequest, company: Company) -> HttpResponse:
    page = paginate(request, selectors.quotations_of_supplier(company_id=company.pk), PER_PAGE)
    return render(
        request,
        "sourcing/my_quotations.html",
        {"page": page, "quota_left": selectors.quota_left(company=company)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def quotation_submit(request: HttpRequest, pk: int) -> HttpResponse:
    buying_request = selectors.access_request(user=request.user, request_id=pk)
    if not selectors.can_quote(user=request.user, buying_request=buying_request):
        messages.info(request, _("This request does not take quotations from you now."))
        return redirect("sourcing:request_detail", pk=buying_request.pk)
    existing = selectors.own_quotation(user=request.user, buying_request=buying_request)
    initial: dict[str, Any] = {}
    if existing is not None:
        initial = {
            "unit_price": plain_number(existing.unit_price),
            "currency": existing.currency,
            "moq": plain_number(existing.moq),
            "lead_time_days": existing.lead_time_days,
            "incoterm": existing.incoterm,
            "named_place": existing.named_place,
            "payment_terms": existing.payment_terms,
            "valid_until": existing.valid_until.isoformat(),
            "sample_available": existing.sample_available,
            "sample_cost": plain_number(existing.sample_cost),
            "message": existing.message,
        }
    form = QuotationForm(request.POST or None, initial=initial, language=get_language())
    tiers = price_tier_formset(
        request.POST if request.method == "POST" else None,
        tiers=existing.price_tiers if existing is not None else None,
    )
    # Both are checked, so that every error of the page shows at once.
    valid = form.is_valid()
    valid = tiers.is_valid() and valid
    if request.method == "POST" and valid:
        try:
            services.quotation_submit(
                actor=request.user,
                buying_request=buying_request,
                **form.service_fields(price_tiers=tiers.tiers()),
            )
        except SourcingError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("Your quotation is sent."))
            return redirect("sourcing:my_quotations")
    return render(
        request,
        "sourcing/quote_form.html",
        {
            "form": form,
            "tiers": tiers,
            "buying_request": buying_request,
            "existing": existing,
            "attachment_form": AttachmentForm(),
            "attachments": list(existing.attachments.all()) if existing else [],
        },
    )


@login_required
def compare(request: HttpRequest, pk: int) -> HttpResponse:
    buying_request = selectors.access_request_for_buyer(user=request.user, request_id=pk)
    sort = request.GET.get("sort", "price")
    if sort not in selectors.COMPARISON_SORTS:
        sort = "price"
    # The currency asked for in the address, else the viewer's display currency.
    shown = viewer_display_currency(request)
    currency = request.GET.get("currency") or (shown if shown != AS_LISTED else "USD")
    comparison = selectors.compare_quotations(
        buying_request=buying_request, currency=currency[:3], sort=sort
    )
    attachments = selectors.attachments_by_quotation(
        quotation_ids=[row.quotation.pk for row in comparison.rows]
    )
    language = get_language()
    attach_quotation_texts([row.quotation for row in comparison.rows], language)
    for row in comparison.rows:
        row.quotation.attachment_list = attachments.get(row.quotation.pk, [])  # type: ignore[attr-defined]
        row.quotation.supplier_name = row.quotation.supplier.name_for(language)  # type: ignore[attr-defined]
    return render(
        request,
        "sourcing/compare.html",
        {
            "buying_request": buying_request,
            "comparison": comparison,
            "sort": sort,
            "sorts": [
                ("price", _("Price")),
                ("lead_time", _("Lead time")),
                ("moq", _("MOQ")),
                ("verified", _("Verified suppliers first")),
                ("response_rate", _("Response rate")),
            ],
            "currencies": [
                *COMMON_CURRENCIES,
                *([] if comparison.currency in COMMON_CURRENCIES else [comparison.currency]),
            ],
            "decline_form": DeclineForm(),
        },
    )


def _buyer_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    quotation: Quotation = selectors.access_quotation_for_buyer(user=request.user, quotation_id=pk)
    try:
        if action == "shortlist":
            services.quotation_shortlist(actor=request.user, quotation=quotation)
            messages.success(request, _("The quotation is shortlisted."))
        elif action == "decline":
            form = DeclineForm(request.POST)
            if not form.is_valid():  # a reason too long (or holding a NUL): say so, decline nothing
                for message in form.errors.get("reason", []):
                    messages.error(request, str(message))
                return redirect("sourcing:compare", pk=quotation.request_id)
            reason = form.cleaned_data["reason"]
            services.quotation_decline(actor=request.user, quotation=quotation, reason=reason)
            messages.success(request, _("The quotation is declined."))
        else:
            services.quotation_award(actor=request.user, quotation=quotation)
            messages.success(request, _("The request is awarded; the suppliers are told."))
    except SourcingError as error:
        flash_refusal(request, error)
    return redirect("sourcing:compare", pk=quotation.request_id)


@login_required
@require_POST
def quotation_shortlist(request: HttpRequest, pk: int) -> HttpResponse:
    return _buyer_action(request, pk, "shortlist")


@login_required
@require_POST
def quotation_decline(request: HttpRequest, pk: int) -> HttpResponse:
    return _buyer_action(request, pk, "decline")


@login_required
@require_http_methods(["GET", "POST"])
def quotation_award(request: HttpRequest, pk: int) -> HttpResponse:
    """Awarding takes two steps: this page says what awarding does (the other quotations are
    not selected, every supplier is told, nothing can be undone) and its form, posted with
    `confirm=yes`, awards. A post without it only shows the page again."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        return _buyer_action(request, pk, "award")
    quotation = selectors.access_quotation_for_buyer(user=request.user, quotation_id=pk)
    if request.method == "POST":
        return redirect("sourcing:award", pk=quotation.pk)
    buying_request = quotation.request
    return render(
        request,
        "sourcing/award_confirm.html",
        {
            "quotation": quotation,
            "buying_request": buying_request,
            "supplier_name": quotation.supplier.name_for(get_language()),
            "other_quotations": selectors.quotations_for_buyer(buying_request=buying_request)
            .exclude(pk=quotation.pk)
            .count(),
        },
    )


@login_required
@require_POST
def quotation_ask(request: HttpRequest, pk: int) -> HttpResponse:
    """The buyer asks the quoting supplier a question: on to the (new or reused) conversation."""
    quotation = selectors.access_quotation_for_buyer(user=request.user, quotation_id=pk)
    try:
        conversation = services.quotation_question(
            actor=request.user, quotation=quotation, message=request.POST.get("message", "")
        )
    except (SourcingError, MessagingError) as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("Your question is sent to the supplier."))
        return redirect("messaging:detail", conversation_id=conversation.pk)
    return redirect("sourcing:compare", pk=quotation.request_id)


# --- attachments -----------------------------------------------------------------------------


def _file_refused(form: AttachmentForm) -> str:
    """Why the form refused the file: none chosen, or the form's own reason (an empty file)."""
    if form.has_error("file", "required"):
        return _("Choose a file to attach.")
    refused = " ".join(str(message) for message in form.errors.get("file", []))
    return refused or _("Choose a file to attach.")


def _attach_posted_file(request: HttpRequest, attach: Callable[[Any], object]) -> None:
    """Check the posted file with the form, hand it to `attach` (a service) and say how it
    went."""
    form = AttachmentForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, _file_refused(form))
        return
    try:
        attach(form.cleaned_data["file"])
    except SourcingError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The file is attached."))


@login_required
@require_POST
def request_attachment_add(request: HttpRequest, pk: int) -> HttpResponse:
    buying_request = selectors.access_request_for_buyer(user=request.user, request_id=pk)
    _attach_posted_file(
        request,
        lambda upload: services.attachment_add_to_request(
            actor=request.user, buying_request=buying_request, upload=upload
        ),
    )
    return redirect("sourcing:request_detail", pk=buying_request.pk)


@login_required
@require_POST
def quotation_attachment_add(request: HttpRequest, pk: int) -> HttpResponse:
    quotation = selectors.access_quotation(user=request.user, quotation_id=pk)
    _attach_posted_file(
        request,
        lambda upload: services.attachment_add_to_quotation(
            actor=request.user, quotation=quotation, upload=upload
        ),
    )
    return redirect("sourcing:quote", pk=quotation.request_id)


@login_required
@require_POST
def attachment_remove(request: HttpRequest, pk: int) -> HttpResponse:
    attachment = selectors.access_attachment(user=request.user, attachment_id=pk)
    request_id = (
        attachment.request_id
        if attachment.request_id is not None
        else Quotation.objects.filter(pk=attachment.quotation_id or 0)
        .values_list("request_id", flat=True)
        .first()
    )
    try:
        services.attachment_remove(actor=request.user, attachment=attachment)
    except SourcingError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The file is removed."))
    return redirect("sourcing:request_detail", pk=request_id)


def attachment_download(request: HttpRequest, pk: int) -> FileResponse:
    attachment = selectors.access_attachment(user=request.user, attachment_id=pk)
    return uploaded_file_response(
        attachment.file,
        name=attachment.original_name,
        content_type=attachment.content_type,
        as_attachment=attachment.content_type == "application/pdf",
    )

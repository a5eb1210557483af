"""Buying requests and quotations: /api/v1/requests.

Open requests are public; the buyer's identity is shown only as country and business types
until the buyer reveals it. Quotations are visible only to the buyer company and the quoting
supplier; another company's request or quotation answers exactly like a missing one (404).
Refused input answers 422 with one entry per field in `errors`; a request that is full, closed,
or a quota that is used up answers 409.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from django.http import FileResponse, HttpRequest
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import File, Query, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from tradepost.api.auth import API_AUTH, PUBLIC_AUTH, PUBLIC_OPENAPI, caller, caller_actor
from tradepost.api.bodies import JsonBody, JsonDate, JsonDateTime, JsonDecimal
from tradepost.api.filters import RequestFilterQuery
from tradepost.api.messaging import MessageTranslationOut
from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import validation_problem
from tradepost.api.refs import AttachmentOut
from tradepost.companies.actors import actor_for
from tradepost.core.downloads import uploaded_file_response
from tradepost.sourcing import selectors, services
from tradepost.sourcing.first_look import first_look_labels
from tradepost.sourcing.machine_texts import attach_quotation_texts, attach_request_texts
from tradepost.sourcing.matching import MAX_LIMIT as MATCHING_LIMIT
from tradepost.sourcing.matching import matching_requests
from tradepost.sourcing.models import Attachment, BuyingRequest, Quotation

router = Router(tags=["buying requests"])

# --- schemas ---------------------------------------------------------------------------------


class RequestWrite(JsonBody):
    """Fields of a buying request. On PATCH, only the fields sent are changed; once
    quotations have arrived only `description` and a later `deadline` may change."""

    title: str | None = None
    description: str | None = Field(None, description="HTML; scripts and styles are removed")
    original_language: str | None = Field(None, description="Language code, e.g. en, zh-hans")
    category_id: int | None = Field(None, description="A leaf category's id")
    quantity: JsonDecimal | None = None
    unit: str | None = None
    target_unit_price: JsonDecimal | None = None
    target_currency: str | None = Field(None, description="ISO 4217 code")
    destination_country: str | None = Field(None, description="ISO 3166 alpha-2 code")
    destination_port: str | None = None
    preferred_incoterm: str | None = None
    required_certifications: list[str] | None = None
    deadline: JsonDateTime | None = None
    sealed: bool | None = None
    reveal_identity: bool | None = None


class RequestCreate(RequestWrite):
    """A new buying request: what it needs (`RequestWrite` lists the rest)."""

    title: str  # type: ignore[assignment]
    category_id: int = Field(description="A leaf category's id")  # type: ignore[assignment]
    quantity: JsonDecimal  # type: ignore[assignment]
    unit: str  # type: ignore[assignment]
    destination_country: str = Field(description="ISO 3166 alpha-2 code")  # type: ignore[assignment]
    deadline: JsonDateTime  # type: ignore[assignment]


class BuyerOut(Schema):
    country: str
    business_types: list[str]
    company_id: int | None = Field(None, description="Only when the buyer reveals it")
    name: str | None = Field(None, description="Only when the buyer reveals it")


class RequestTranslationOut(Schema):
    language: str = Field(description="The caller's language: en, zh-hans or zh-hant")
    title: str
    description_html: str = Field(
        description="Escaped HTML paragraphs (the original's until its translation is stored)"
    )
    machine_translated: bool = Field(
        description="Always true: written by machine translation, so the wording may be wrong; "
        "`title` and `description` hold the buyer's own words"
    )


class RequestOut(Schema):
    id: int
    title: str
    description: str
    original_language: str
    category_id: int
    quantity: Decimal
    unit: str
    target_unit_price: Decimal | None
    target_currency: str
    destination_country: str
    destination_port: str
    preferred_incoterm: str
    required_certifications: list[str]
    deadline: datetime
    sealed: bool
    reveal_identity: bool
    status: str
    quote_limit: int
    quotation_count: int | None = Field(None, description="Null while sealed")
    buyer: BuyerOut
    created_at: datetime
    translation: RequestTranslationOut | None = Field(
        None,
        description="The request machine-translated into the caller's language "
        "(Accept-Language), when it is written in another one and the translation is stored",
    )


class PriceTier(JsonBody):
    min_quantity: JsonDecimal
    unit_price: JsonDecimal


class QuotationWrite(JsonBody):
    unit_price: JsonDecimal
    currency: str = Field(description="ISO 4217 code")
    price_tiers: list[PriceTier] = []
    moq: JsonDecimal
    lead_time_days: int
    incoterm: str
    named_place: str = ""
    payment_terms: list[str] = []
    valid_until: JsonDate
    sample_available: bool = False
    sample_cost: JsonDecimal | None = None
    message: str = ""


class QuotationOut(Schema):
    id: int
    request_id: int
    supplier_id: int
    supplier_name: str
    supplier_verified: bool
    unit_price: Decimal
    currency: str
    price_tiers: list[dict[str, str]]
    moq: Decimal
    lead_time_days: int
    incoterm: str
    named_place: str
    payment_terms: list[str]
    valid_until: date
    sample_available: bool
    sample_cost: Decimal | None
    message: str
    status: str
    decline_reason: str
    revision: int
    created_at: datetime
    updated_at: datetime


class ComparedOut(QuotationOut):
    message_language: str = Field(
        description="The language the supplier's note is written in: en, zh-hans or zh-hant"
    )
    message_translation: MessageTranslationOut | None = Field(
        None,
        description="The note machine-translated into the API request's language "
        "(Accept-Language; null: in that language already, or not translated yet)",
    )
    normalised_unit_price: Decimal | None
    rate_date: date | None
    supplier_response_rate: float | None = Field(
        None, description="Share (0-1) of buyers' asks answered within 24 h; null if none yet"
    )
    supplier_median_response_hours: int | None = Field(
        None, description="Median hours to the supplier's first answer"
    )


class ComparisonOut(Schema):
    currency: str
    rates_as_of: date | None
    missing_currencies: list[str]
    items: list[ComparedOut]


class ComparisonQuery(Schema):
    currency: str = Field("USD", max_length=3)
    sort: Literal["price", "lead_time", "moq", "verified", "response_rate", "received"] = "price"


class DeclineIn(JsonBody):
    reason: str


# --- helpers ---------------------------------------------------------------------------------


def _request_out(item: BuyingRequest, *, user: Any, own_company_id: int | None) -> dict[str, Any]:
    data = {name: getattr(item, name) for name in RequestOut.model_fields if hasattr(item, name)}
    revealed = item.reveal_identity or own_company_id == item.buyer_id
    data["buyer"] = {
        "country": item.buyer.country,
        "business_types": list(item.buyer.business_types or []),
        "company_id": item.buyer_id if revealed else None,
        "name": item.buyer.legal_name if revealed else None,
    }
    data["quotation_count"] = selectors.quotation_count_for(
        viewer_company_id=own_company_id, buying_request=item
    )
    text = getattr(item, "text", None)  # attached by `_read_in_callers_language`
    data["translation"] = (
        {
            "language": text.language,
            "title": text.title,
            "description_html": text.written_description,
            "machine_translated": True,
        }
        if text is not None and text.machine
        else None
    )
    return data


def _read_in_callers_language(items: list[BuyingRequest]) -> None:
    """The requests' texts in the caller's language (Accept-Language), one query for all."""
    attach_request_texts(items, get_language() or "en")


def _quotation_out(quotation: Quotation) -> dict[str, Any]:
    data = {
        name: getattr(quotation, name)
        for name in QuotationOut.model_fields
        if hasattr(quotation, name)
    }
    data["supplier_name"] = quotation.supplier.legal_name
    data["supplier_verified"] = quotation.supplier.is_verified
    return data


def _note_reading(reading: Any) -> dict[str, Any]:
    """A quotation's note as the caller reads it (`sourcing.machine_texts`)."""
    machine = reading.machine_text
    return {
        "message_language": reading.language,
        "message_translation": None
        if machine is None
        else {"language": machine.language, "text": machine.text, "machine_translated": True},
    }


# --- requests --------------------------------------------------------------------------------


@router.get(
    "",
    response=list[RequestOut],
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="Open buying requests",
)
@paged()
def list_requests(request: HttpRequest, query: Query[RequestFilterQuery]) -> Rows:
    filters = selectors.BoardFilters(
        category_id=query.category,
        destinations=query.destinations(),
        quantity_min=query.quantity_min,
        quantity_max=query.quantity_max,
        posted_within_days=query.posted_within,
    )
    user = caller(request)
    own = actor_for(user).company_id
    return Rows(
        selectors.open_requests(filters=filters),
        render=lambda item: _request_out(item, user=user, own_company_id=own),
        prepare=_read_in_callers_language,
    )


@router.post("", response={201: RequestOut}, auth=API_AUTH, summary="Post a buying request")
def create_request(request: HttpRequest, payload: RequestCreate) -> Status[dict[str, Any]]:
    user = caller(request)
    created = services.request_create(actor=user, **payload.model_dump(exclude_unset=True))
    created = selectors.access_request(user=user, request_id=created.pk)
    return Status(201, _request_out(created, user=user, own_company_id=created.buyer_id))


@router.get("/mine", response=list[RequestOut], auth=API_AUTH, summary="My company's requests")
@paged()
def my_requests(request: HttpRequest) -> Rows:
    user = caller(request)
    own = caller_actor(request).require_company().pk
    queryset = selectors.requests_of_company(company_id=own).select_related("buyer")
    return Rows(
        queryset,
        render=lambda item: _request_out(item, user=user, own_company_id=own),
        prepare=_read_in_callers_language,
    )


class MatchingQuery(Schema):
    language: Literal["en", "zh-hans", "zh-hant"] | None = Field(
        None, description="Language of the reasons; the request's language when left out"
    )


class RequestMatchOut(Schema):
    request: RequestOut
    score: float
    reasons: list[str] = Field(description="Why the request matches, in the asked language")
    product_id: int | None = Field(None, description="Your product it matches best")
    already_quoted: bool
    first_look: bool = Field(
        False,
        description="Your plan's first look: the other matching suppliers are not told yet",
    )
    first_look_until: datetime | None = Field(
        None, description="When the other matching suppliers are told (during a first look)"
    )


@router.get(
    "/matching",
    response=list[RequestMatchOut],
    auth=API_AUTH,
    summary="Open requests that match my company's published products",
    description=f"The best {MATCHING_LIMIT} matches, best first, in pages.",
)
@paged()
def matching(request: HttpRequest, query: Query[MatchingQuery]) -> Rows:
    user = caller(request)
    company = caller_actor(request).require_company()
    matches = matching_requests(
        company=company,
        language=query.language or get_language() or "en",
        limit=MATCHING_LIMIT,
    )
    quoted = selectors.quoted_request_ids(
        company_id=company.pk, request_ids=[m.request.pk for m in matches]
    )
    first_look = first_look_labels(company, [m.request for m in matches])
    _read_in_callers_language([m.request for m in matches])
    return Rows(
        matches,
        render=lambda m: {
            "request": _request_out(m.request, user=user, own_company_id=company.pk),
            "score": m.score,
            "reasons": m.reasons,
            "product_id": m.product_id,
            "already_quoted": m.request.pk in quoted,
            "first_look": m.request.pk in first_look,
            "first_look_until": first_look.get(m.request.pk),
        },
    )


@router.get(
    "/{int:request_id}",
    response=RequestOut,
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="One request",
)
def get_request(request: HttpRequest, request_id: int) -> dict[str, Any]:
    user = caller(request)
    item = selectors.access_request(user=user, request_id=request_id)
    _read_in_callers_language([item])
    return _request_out(item, user=user, own_company_id=actor_for(user).company_id)


@router.patch("/{int:request_id}", response=RequestOut, auth=API_AUTH, summary="Change a request")
def update_request(request: HttpRequest, request_id: int, payload: RequestWrite) -> dict[str, Any]:
    user = caller(request)
    item = selectors.access_request_for_buyer(user=user, request_id=request_id)
    services.request_update(
        actor=user, buying_request=item, **payload.model_dump(exclude_unset=True)
    )
    item = selectors.access_request_for_buyer(user=user, request_id=request_id)
    return _request_out(item, user=user, own_company_id=item.buyer_id)


@router.post(
    "/{int:request_id}/close", response=RequestOut, auth=API_AUTH, summary="Close a request"
)
def close_request(request: HttpRequest, request_id: int) -> dict[str, Any]:
    user = caller(request)
    item = selectors.access_request_for_buyer(user=user, request_id=request_id)
    services.request_close(actor=user, buying_request=item)
    return _request_out(item, user=user, own_company_id=item.buyer_id)


# --- quotations ------------------------------------------------------------------------------


@router.get(
    "/{int:request_id}/quotations",
    response=ComparisonOut,
    auth=API_AUTH,
    summary="The request's quotations side by side (buyer only)",
)
def list_quotations(
    request: HttpRequest, request_id: int, query: Query[ComparisonQuery]
) -> dict[str, Any]:
    item = selectors.access_request_for_buyer(user=caller(request), request_id=request_id)
    comparison = selectors.compare_quotations(
        buying_request=item, currency=query.currency, sort=query.sort
    )
    if comparison.unknown_currency:
        raise validation_problem(
            {"currency": [_("Not a currency this site knows (ISO 4217 codes such as USD, EUR).")]}
        )
    attach_quotation_texts([row.quotation for row in comparison.rows], get_language())
    return {
        "currency": comparison.currency,
        "rates_as_of": comparison.rates_as_of,
        "missing_currencies": comparison.missing_currencies,
        "items": [
            {
                **_quotation_out(row.quotation),
                **_note_reading(row.quotation.message_reading),  # type: ignore[attr-defined]
                "normalised_unit_price": row.normalised_price,
                "rate_date": row.rate_date,
                "supplier_response_rate": (
                    row.responsiveness.response_rate if row.responsiveness else None
                ),
                "supplier_median_response_hours": (
                    row.responsiveness.median_hours if row.responsiveness else None
                ),
            }
            for row in comparison.rows
        ],
    }


@router.post(
    "/{int:request_id}/quotations",
    response={201: QuotationOut},
    auth=API_AUTH,
    summary="Send or revise my company's quotation",
)
def submit_quotation(
    request: HttpRequest, request_id: int, payload: QuotationWrite
) -> Status[dict[str, Any]]:
    user = caller(request)
    item = selectors.access_request(user=user, request_id=request_id)
    fields = payload.model_dump()
    fields["price_tiers"] = [
        {"min_quantity": str(t.min_quantity), "unit_price": str(t.unit_price)}
        for t in payload.price_tiers
    ]
    quotation = services.quotation_submit(actor=user, buying_request=item, **fields)
    return Status(
        201, _quotation_out(selectors.access_quotation(user=user, quotation_id=quotation.pk))
    )


@router.get("/quotations/mine", response=list[QuotationOut], auth=API_AUTH, summary="My quotations")
@paged()
def my_quotations(request: HttpRequest) -> Rows:
    own = caller_actor(request).company_id
    if own is None:
        return Rows([])
    queryset = selectors.quotations_of_supplier(company_id=own).select_related("supplier")
    return Rows(queryset, render=_quotation_out)


@router.get(
    "/quotations/{int:quotation_id}", response=QuotationOut, auth=API_AUTH, summary="A quotation"
)
def get_quotation(request: HttpRequest, quotation_id: int) -> dict[str, Any]:
    return _quotation_out(
        selectors.access_quotation(user=caller(request), quotation_id=quotation_id)
    )


def _decide(request: HttpRequest, quotation_id: int, action: str, reason: str = "") -> Any:
    user = caller(request)
    quotation = selectors.access_quotation_for_buyer(user=user, quotation_id=quotation_id)
    if action == "shortlist":
        services.quotation_shortlist(actor=user, quotation=quotation)
    elif action == "decline":
        services.quotation_decline(actor=user, quotation=quotation, reason=reason)
    else:
        services.quotation_award(actor=user, quotation=quotation)
    return _quotation_out(selectors.access_quotation(user=user, quotation_id=quotation_id))


@router.post(
    "/quotations/{int:quotation_id}/shortlist",
    response=QuotationOut,
    auth=API_AUTH,
    summary="Shortlist a quotation (buyer)",
)
def shortlist_quotation(request: HttpRequest, quotation_id: int) -> Any:
    return _decide(request, quotation_id, "shortlist")


@router.post(
    "/quotations/{int:quotation_id}/decline",
    response=QuotationOut,
    auth=API_AUTH,
    summary="Decline a quotation with a reason (buyer)",
)
def decline_quotation(request: HttpRequest, quotation_id: int, payload: DeclineIn) -> Any:
    return _decide(request, quotation_id, "decline", payload.reason)


@router.post(
    "/quotations/{int:quotation_id}/award",
    response=QuotationOut,
    auth=API_AUTH,
    summary="Award the request to a quotation (buyer)",
)
def award_quotation(request: HttpRequest, quotation_id: int) -> Any:
    return _decide(request, quotation_id, "award")


# --- attachments -----------------------------------------------------------------------------


def _attachment_out(request: HttpRequest, attachment: Attachment) -> dict[str, Any]:
    return {
        "id": attachment.pk,
        "name": attachment.original_name,
        "content_type": attachment.content_type,
        "size": attachment.size,
        "url": request.build_absolute_uri(f"{BASE_PATH}/attachments/{attachment.pk}"),
    }


BASE_PATH = "/api/v1/requests"


@router.get(
    "/{int:request_id}/attachments",
    response=list[AttachmentOut],
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="Files attached to a request",
)
def list_request_attachments(request: HttpRequest, request_id: int) -> list[dict[str, Any]]:
    item = selectors.access_request(user=caller(request), request_id=request_id)
    return [
        _attachment_out(request, a) for a in selectors.attachments_of_request(buying_request=item)
    ]


@router.post(
    "/{int:request_id}/attachments",
    response={201: AttachmentOut},
    auth=API_AUTH,
    summary="Attach a PDF or an image to my company's request",
)
def add_request_attachment(
    request: HttpRequest, request_id: int, file: File[UploadedFile]
) -> Status[dict[str, Any]]:
    user = caller(request)
    item = selectors.access_request_for_buyer(user=user, request_id=request_id)
    attachment = services.attachment_add_to_request(actor=user, buying_request=item, upload=file)
    return Status(201, _attachment_out(request, attachment))


@router.post(
    "/quotations/{int:quotation_id}/attachments",
    response={201: AttachmentOut},
    auth=API_AUTH,
    summary="Attach a PDF or an image to my company's quotation",
)
def add_quotation_attachment(
    request: HttpRequest, quotation_id: int, file: File[UploadedFile]
) -> Status[dict[str, Any]]:
    user = caller(request)
    quotation = selectors.access_quotation(user=user, quotation_id=quotation_id)
    attachment = services.attachment_add_to_quotation(actor=user, quotation=quotation, upload=file)
    return Status(201, _attachment_out(request, attachment))


@router.get(
    "/quotations/{int:quotation_id}/attachments",
    response=list[AttachmentOut],
    auth=API_AUTH,
    summary="Files attached to a quotation (buyer and supplier)",
)
def list_quotation_attachments(request: HttpRequest, quotation_id: int) -> list[dict[str, Any]]:
    quotation = selectors.access_quotation(user=caller(request), quotation_id=quotation_id)
    return [_attachment_out(request, a) for a in quotation.attachments.all()]


@router.get(
    "/attachments/{int:attachment_id}",
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="Download a file",
)
def download_attachment(request: HttpRequest, attachment_id: int) -> FileResponse:
    attachment = selectors.access_attachment(user=caller(request), attachment_id=attachment_id)
    return uploaded_file_response(
        attachment.file,
        name=attachment.original_name,
        content_type=attachment.content_type,
        as_attachment=attachment.content_type == "application/pdf",
    )


# --- questions on a quotation ----------------------------------------------------------------


class QuestionIn(JsonBody):
    message: str = Field(..., description="The question (plain text)")


class QuestionOut(Schema):
    conversation_id: int
    buying_request_id: int


@router.post(
    "/quotations/{int:quotation_id}/ask",
    response={201: QuestionOut},
    auth=API_AUTH,
    summary="Ask the supplier a question about its quotation (buyer)",
    description="Opens a conversation with the quoting supplier, linked to the request, or "
    "adds the question to the one already open. Read and answer it under /api/v1/conversations.",
)
def ask_quotation(
    request: HttpRequest, quotation_id: int, payload: QuestionIn
) -> Status[dict[str, Any]]:
    user = caller(request)
    quotation = selectors.access_quotation_for_buyer(user=user, quotation_id=quotation_id)
    conversation = services.quotation_question(
        actor=user, quotation=quotation, message=payload.message
    )
    return Status(
        201, {"conversation_id": conversation.pk, "buying_request_id": quotation.request_id}
    )

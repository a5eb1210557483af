"""Trade alerts (saved searches): /api/v1/alerts (docs/api.md, docs/adr/0037-trade-alerts.md).

Any member of a company saves searches for it, within its plan's number of alerts, changes
their words, filters and frequency, pauses and deletes them, and reads the listings that
matched each, as they are shown now. The services check every field (`alerts.services`, in
the caller's language); this module only reads the body. Another company's alert answers 404
like a missing one; a caller who acts for no company, 403 `no-company`; the plan's alerts all
in use, 409 `alert-limit-reached`. Refusals become problem documents in one place,
`api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from django.db.models import Count, Max, Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language
from ninja import Router, Schema, Status
from pydantic import BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from tradepost.alerts import selectors, services
from tradepost.alerts.models import AlertKind, SavedSearch
from tradepost.alerts.selectors import MatchItem
from tradepost.api.auth import API_AUTH, caller, caller_actor
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import CutPage, Page, Rows, paged
from tradepost.core.languages import normalise_ui_language
from tradepost.core.numbers import decimal_text

router = Router(auth=API_AUTH, tags=["trade alerts"])

_KINDS = ", ".join(AlertKind.values)
_FREQUENCIES = "instant (at most one email an hour), daily (the default) or weekly"
_PARAMS_DESCRIPTION = (
    "The search page's filters, by name: one text or a list of texts each (at most 20, of at "
    "most 40 characters). Products: category (an id), country (ISO 3166), verified (1), "
    "language (a listing language), incoterm, moq_max, price_min, price_max (US dollars), "
    "lead_time_max (days); buying requests: category, destination (ISO 3166), quantity_min, "
    "quantity_max; suppliers: country, verified, business_type. An unknown filter, or a value "
    "the search would not understand, is refused (422 under `params`)"
)


def _text_or_texts(value: Any) -> Any:
    """A filter's value: one text or a list of texts, refused as one field (not once for each
    of the two alternatives, as pydantic would)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise PydanticCustomError("string_type", "Input should be text or a list of texts")


FilterValues = Annotated[str | list[str], BeforeValidator(_text_or_texts)]

# --- schemas ---------------------------------------------------------------------------------


class AlertIn(JsonBody):
    """A new trade alert: what it looks for, its words and filters (at least one of the two)."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description=f"What it looks for: {_KINDS}")
    query: str = Field("", description="The words looked for (at most 200 characters)")
    params: dict[str, FilterValues] = Field(default_factory=dict, description=_PARAMS_DESCRIPTION)
    language: str | None = Field(
        None,
        description="The language of its emails: en, zh-hans or zh-hant; by default the "
        "request's (Accept-Language)",
    )
    frequency: str | None = Field(None, description=f"How often it emails: {_FREQUENCIES}")


class AlertPatch(JsonBody):
    """Only the fields sent are changed (null: left as it is); what an alert looks for stays."""

    model_config = ConfigDict(extra="forbid")

    kind: str | None = Field(
        None, description="Cannot change: send the alert's own kind, or leave it out"
    )
    query: str | None = Field(None, description="New words (empty: none)")
    params: dict[str, FilterValues] | None = Field(
        None, description="New filters, replacing the old ones ({}: none)"
    )
    language: str | None = Field(None, description="en, zh-hans or zh-hant")
    frequency: str | None = Field(None, description=_FREQUENCIES)
    paused: bool | None = Field(None, description="true: no emails until false again")


class AlertOut(Schema):
    id: int
    kind: str = Field(description=_KINDS)
    query: str
    params: dict[str, list[str]] = Field(description="The saved filters, each a list of texts")
    language: str = Field(description="The language of its emails")
    frequency: str = Field(description="instant, daily or weekly")
    paused: bool
    match_count: int = Field(description="Listings that matched it since it was saved")
    unsent_count: int = Field(description="Of those, the ones no email has told of yet")
    last_match_at: datetime | None
    last_sent_at: datetime | None = Field(description="When its last email was sent")
    category_removed: bool = Field(
        description="It filters on a category that no longer exists, so it matches nothing"
    )
    search_url: str = Field(description="The search page of its search, as it runs today")
    created_at: datetime
    updated_at: datetime


class AlertUsageOut(Schema):
    used: int = Field(description="The company's alerts")
    limit: int = Field(description="How many its plan keeps")


class AlertPageOut(Page):
    usage: AlertUsageOut


class AlertCompanyOut(Schema):
    id: int
    slug: str
    name: str = Field(description="In the request's language")
    country: str = Field(description="ISO 3166 alpha-2 code")
    verified: bool
    url: str


class AlertProductOut(Schema):
    id: int
    title: str = Field(description="In the request's language (Accept-Language)")
    language: str = Field(description="The title's language")
    machine_translated: bool
    url: str
    thumbnail_url: str | None
    price_min: str | None
    price_max: str | None
    currency: str
    moq: str | None
    moq_unit: str
    company: AlertCompanyOut


class AlertRequestOut(Schema):
    id: int
    title: str = Field(description="In the request's language (Accept-Language)")
    language: str = Field(description="The title's language")
    machine_translated: bool
    url: str


class AlertMatchOut(Schema):
    object_id: int = Field(description="The id of the product, buying request or company")
    matched_at: datetime
    sent: bool = Field(description="An email has told of it")
    item: AlertProductOut | AlertRequestOut | AlertCompanyOut | None = Field(
        description="What it shows now, as the alert's kind is (a product, a buying request, "
        "a company); null when it is no longer shown (unpublished, hidden, closed)"
    )


# --- helpers ---------------------------------------------------------------------------------


def _language() -> str:
    return normalise_ui_language(get_language())


def _counted(alert: SavedSearch) -> SavedSearch:
    """The alert with the counts `selectors.alerts_of_company` gives each of a list."""
    counts = alert.matches.aggregate(
        match_count=Count("pk"),
        unsent_count=Count("pk", filter=Q(digest__isnull=True)),
        last_match_at=Max("matched_at"),
    )
    for name, value in counts.items():
        setattr(alert, name, value)
    return alert


def _alert_out(request: HttpRequest, alert: SavedSearch) -> dict[str, Any]:
    return {
        "id": alert.pk,
        "kind": alert.kind,
        "query": alert.query,
        "params": {name: list(values) for name, values in (alert.params or {}).items()},
        "language": alert.language,
        "frequency": alert.frequency,
        "paused": alert.paused,
        "match_count": getattr(alert, "match_count", 0),
        "unsent_count": getattr(alert, "unsent_count", 0),
        "last_match_at": getattr(alert, "last_match_at", None),
        "last_sent_at": alert.last_sent_at,
        "category_removed": selectors.category_removed(alert),
        "search_url": request.build_absolute_uri(selectors.search_path(alert, _language())),
        "created_at": alert.created_at,
        "updated_at": alert.updated_at,
    }


def _company_out(request: HttpRequest, company: Any, language: str) -> dict[str, Any]:
    return {
        "id": company.pk,
        "slug": company.slug,
        "name": company.name_for(language),
        "country": company.country,
        "verified": company.is_verified,
        "url": request.build_absolute_uri(reverse("catalog:company_detail", args=[company.slug])),
    }


def _item_out(request: HttpRequest, kind: str, item: Any, language: str) -> dict[str, Any]:
    if kind == AlertKind.PRODUCT:  # a `catalog.selectors.ProductCard`
        product = item.product
        return {
            "id": product.pk,
            "title": item.text.title,
            "language": item.text.lang_tag,
            "machine_translated": item.text.machine,
            "url": request.build_absolute_uri(product.get_absolute_url()),
            "thumbnail_url": (
                request.build_absolute_uri(item.thumbnail_url) if item.thumbnail_url else None
            ),
            "price_min": decimal_text(product.price_min, min_decimals=2),
            "price_max": decimal_text(product.price_max, min_decimals=2),
            "currency": product.currency,
            "moq": decimal_text(product.moq),
            "moq_unit": product.moq_unit,
            "company": _company_out(request, product.company, language),
        }
    if kind == AlertKind.REQUEST:  # a buying request with its `text` in the language
        return {
            "id": item.pk,
            "title": item.text.title,
            "language": item.text.lang_tag,
            "machine_translated": item.text.machine,
            "url": request.build_absolute_uri(reverse("sourcing:request_detail", args=[item.pk])),
        }
    return _company_out(request, item, language)


def _match_out(request: HttpRequest, kind: str, found: MatchItem, language: str) -> dict[str, Any]:
    match = found.match
    return {
        "object_id": match.object_id,
        "matched_at": match.matched_at,
        "sent": match.digest_id is not None,
        "item": None if found.item is None else _item_out(request, kind, found.item, language),
    }


def _alert(request: HttpRequest, alert_id: int) -> SavedSearch:
    return selectors.access_alert(user=caller(request), alert_id=alert_id)


# --- endpoints -------------------------------------------------------------------------------


@router.get(
    "",
    response=list[AlertOut],
    summary="My company's trade alerts, newest first, with how many its plan keeps",
)
@paged(output=AlertPageOut)
def alert_list(request: HttpRequest) -> Rows:
    company = caller_actor(request).require_company()
    usage = selectors.alert_usage(company)
    return Rows(
        selectors.alerts_of_company(company),
        render=lambda alert: _alert_out(request, alert),
        extra={"usage": {"used": usage.used, "limit": usage.limit}},
    )


@router.post("", response={201: AlertOut}, summary="Save a search as a trade alert")
def alert_create(request: HttpRequest, payload: AlertIn) -> Status[dict[str, Any]]:
    fields = payload.model_dump(exclude_none=True)
    fields.setdefault("language", _language())
    alert = services.saved_search_create(actor=caller_actor(request), **fields)
    return Status(201, _alert_out(request, alert))


@router.get("/{int:alert_id}", response=AlertOut, summary="A trade alert")
def alert_detail(request: HttpRequest, alert_id: int) -> dict[str, Any]:
    return _alert_out(request, _counted(_alert(request, alert_id)))


@router.patch(
    "/{int:alert_id}",
    response=AlertOut,
    summary="Change a trade alert's words, filters, language or frequency, or pause it",
)
def alert_update(request: HttpRequest, alert_id: int, payload: AlertPatch) -> dict[str, Any]:
    alert = services.saved_search_update(
        actor=caller_actor(request),
        alert=_alert(request, alert_id),
        **payload.model_dump(exclude_none=True),
    )
    return _alert_out(request, _counted(alert))


@router.delete("/{int:alert_id}", response={204: None}, summary="Delete a trade alert")
def alert_delete(request: HttpRequest, alert_id: int) -> Status[None]:
    services.saved_search_delete(actor=caller_actor(request), alert=_alert(request, alert_id))
    return Status(204, None)


@router.get(
    "/{int:alert_id}/matches",
    response=list[AlertMatchOut],
    summary="The listings that matched a trade alert, newest first, as they are shown now",
)
@paged(pass_parameter="paging")
def alert_matches(request: HttpRequest, alert_id: int, **kwargs: Any) -> CutPage:
    alert = _alert(request, alert_id)
    paging = kwargs["paging"]
    language = _language()
    found = selectors.alert_matches(
        alert,
        language,
        limit=paging.page_size,
        offset=(paging.page - 1) * paging.page_size,
    )
    return CutPage(
        [_match_out(request, alert.kind, item, language) for item in found],
        alert.matches.count(),
    )

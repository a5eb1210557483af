"""Banned terms and the review queue, for operators: /api/v1/operator/banned-terms (list, add,
add many, read, change, delete) and /api/v1/operator/held-listings (listings held for review,
the terms found in context; approve or reject). Anybody else is refused with 403
`screening-permission-denied` (docs/adr/0023-banned-terms.md).

A supplier sees its listing held as the status "held" on /api/v1/me/products (publishing
answers the product with that status). Refusals become problem documents in one place,
`api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import Field

from tradepost.api.auth import API_AUTH, operator_caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import Rows, paged
from tradepost.api.refs import CompanyRef, RejectIn
from tradepost.catalog import services as catalog_services
from tradepost.catalog.listing_screening import (
    HeldListing,
    access_held_product,
    held_listings,
    held_reviews,
)
from tradepost.catalog.models import Product
from tradepost.screening import selectors, services
from tradepost.screening.models import BannedTerm
from tradepost.screening.selectors import Excerpt

router = Router(auth=API_AUTH, tags=["banned terms"])

LANGUAGES = "any, or a listing language code (en, zh-hans, zh-hant, es, de, ...)"

# --- schemas ---------------------------------------------------------------------------------


class BannedTermIn(JsonBody):
    term: str = Field(description="A word or phrase, at most 100 characters")
    language: str = Field("any", description=f"The texts it screens: {LANGUAGES}")
    note: str = Field("", description="Why it is banned, for operators (at most 300)")
    active: bool = Field(True, description="False: kept on the list, matches nothing")


class BannedTermPatch(JsonBody):
    term: str | None = None
    language: str | None = Field(None, description=LANGUAGES)
    note: str | None = None
    active: bool | None = None


class BannedTermBulkIn(JsonBody):
    terms: str = Field(description="Terms, one per line (at most 1,000 lines)")
    language: str = Field("any", description=f"The texts they screen: {LANGUAGES}")
    note: str = Field("", description="Why they are banned, for operators (at most 300)")


class BannedTermOut(Schema):
    id: int
    term: str
    normalized: str = Field(description="The term as it is matched: folded, one space")
    language: str
    note: str
    active: bool
    created_by_email: str = Field(description="Empty when the account is gone")
    created_at: datetime
    updated_at: datetime


class BulkOut(Schema):
    added: list[BannedTermOut]
    skipped: list[str] = Field(description="Lines already on the list (or pasted twice)")


class BannedTermQuery(Schema):
    q: str = Field("", max_length=100, description="Finds a term, its folded form or note")
    language: str = Field("", max_length=10, description=f"Only terms of: {LANGUAGES}")
    active: bool | None = Field(None, description="Only active (true) or inactive (false)")


class TermRefOut(Schema):
    id: int
    term: str
    language: str


class ExcerptOut(Schema):
    text: str = Field(description="A piece of the text around the terms found")
    marks: list[list[int]] = Field(description="[start, end] of each term found in `text`")
    cut_before: bool
    cut_after: bool


class FindingOut(Schema):
    part: str = Field(description="title, description, keywords or attributes")
    language: str = Field(description="The language the text is written in")
    translated: bool = Field(description="A translation's text, not the original's")
    matched: list[str] = Field(description="The words found, as the supplier wrote them")
    excerpts: list[ExcerptOut]


class HeldListingOut(Schema):
    product_id: int
    title: str
    original_language: str
    company: CompanyRef
    updated_at: datetime
    terms: list[TermRefOut] = Field(
        description="The active terms found now (empty when they were deactivated since)"
    )
    findings: list[FindingOut]


class DecisionOut(Schema):
    product_id: int
    status: str = Field(description="published (approved) or draft (rejected)")


# --- helpers ---------------------------------------------------------------------------------


def _term_out(term: BannedTerm) -> dict[str, Any]:
    return {
        "id": term.pk,
        "term": term.term,
        "normalized": term.normalized,
        "language": term.language,
        "note": term.note,
        "active": term.active,
        "created_by_email": term.created_by.email if term.created_by else "",
        "created_at": term.created_at,
        "updated_at": term.updated_at,
    }


def _excerpt_out(excerpt: Excerpt) -> dict[str, Any]:
    text, marks, position = [], [], 0
    for part, is_match in excerpt.parts:
        if is_match:
            marks.append([position, position + len(part)])
        text.append(part)
        position += len(part)
    return {
        "text": "".join(text),
        "marks": marks,
        "cut_before": excerpt.cut_before,
        "cut_after": excerpt.cut_after,
    }


def _held_out(held: HeldListing) -> dict[str, Any]:
    product = held.product
    return {
        "product_id": product.pk,
        "title": product.title,
        "original_language": product.original_language,
        "company": {
            "id": product.company_id,
            "slug": product.company.slug,
            "name": product.company.legal_name,
        },
        "updated_at": product.updated_at,
        "terms": [{"id": t.pk, "term": t.term, "language": t.language} for t in held.terms],
        "findings": [
            {
                "part": finding.part,
                "language": finding.language,
                "translated": finding.translated,
                "matched": finding.matched,
                "excerpts": [_excerpt_out(excerpt) for excerpt in finding.excerpts],
            }
            for finding in held.findings
        ],
    }


def _decision_out(product: Product) -> dict[str, Any]:
    return {"product_id": product.pk, "status": product.status}


# --- the list --------------------------------------------------------------------------------


@router.get("/banned-terms", response=list[BannedTermOut], summary="The banned terms (operators)")
@paged()
def term_list(request: HttpRequest, query: Query[BannedTermQuery]) -> Rows:
    operator_caller(request)
    terms = selectors.banned_terms(query=query.q, language=query.language, active=query.active)
    return Rows(terms, render=_term_out)


@router.post(
    "/banned-terms", response={201: BannedTermOut}, summary="Add a banned term (operators)"
)
def term_create(request: HttpRequest, payload: BannedTermIn) -> Status[dict[str, Any]]:
    user = operator_caller(request)
    term = services.banned_term_create(actor=user, **payload.dict())
    return Status(201, _term_out(term))


@router.post(
    "/banned-terms/bulk",
    response={201: BulkOut},
    summary="Add banned terms, one per line (operators)",
)
def term_bulk_add(request: HttpRequest, payload: BannedTermBulkIn) -> Status[dict[str, Any]]:
    user = operator_caller(request)
    result = services.banned_terms_bulk_add(actor=user, **payload.dict())
    return Status(
        201, {"added": [_term_out(term) for term in result.added], "skipped": result.skipped}
    )


@router.get(
    "/banned-terms/{int:banned_term_id}",
    response=BannedTermOut,
    summary="One banned term (operators)",
)
def term_get(request: HttpRequest, banned_term_id: int) -> dict[str, Any]:
    user = operator_caller(request)
    return _term_out(selectors.access_banned_term(user=user, banned_term_id=banned_term_id))


@router.patch(
    "/banned-terms/{int:banned_term_id}",
    response=BannedTermOut,
    summary="Change or deactivate a banned term (operators)",
)
def term_update(
    request: HttpRequest, banned_term_id: int, payload: BannedTermPatch
) -> dict[str, Any]:
    user = operator_caller(request)
    term = selectors.access_banned_term(user=user, banned_term_id=banned_term_id)
    fields = {k: v for k, v in payload.model_dump(exclude_unset=True).items() if v is not None}
    return _term_out(services.banned_term_update(actor=user, banned_term=term, **fields))


@router.delete(
    "/banned-terms/{int:banned_term_id}",
    response={204: None},
    summary="Delete a banned term (operators)",
)
def term_delete(request: HttpRequest, banned_term_id: int) -> Status[None]:
    user = operator_caller(request)
    term = selectors.access_banned_term(user=user, banned_term_id=banned_term_id)
    services.banned_term_delete(actor=user, banned_term=term)
    return Status(204, None)


# --- the review queue --------------------------------------------------------------------------


@router.get(
    "/held-listings",
    response=list[HeldListingOut],
    summary="Listings held for review, the terms found in context (operators)",
)
@paged()
def held_list(request: HttpRequest) -> Rows:
    operator_caller(request)
    found: dict[int, HeldListing] = {}

    def prepare(products: list[Product]) -> None:
        found.update((held.product.pk, held) for held in held_reviews(products))

    return Rows(
        held_listings(), render=lambda product: _held_out(found[product.pk]), prepare=prepare
    )


@router.post(
    "/held-listings/{int:product_id}/approve",
    response=DecisionOut,
    summary="Publish a listing held for review (operators)",
)
def held_approve(request: HttpRequest, product_id: int) -> dict[str, Any]:
    user = operator_caller(request)
    product = access_held_product(user=user, product_id=product_id)
    return _decision_out(catalog_services.product_review_approve(actor=user, product=product))


@router.post(
    "/held-listings/{int:product_id}/reject",
    response=DecisionOut,
    summary="Send a listing held for review back to the drafts, with a reason (operators)",
)
def held_reject(request: HttpRequest, product_id: int, payload: RejectIn) -> dict[str, Any]:
    user = operator_caller(request)
    product = access_held_product(user=user, product_id=product_id)
    decided = catalog_services.product_review_reject(
        actor=user, product=product, reason=payload.reason
    )
    return _decision_out(decided)

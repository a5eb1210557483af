"""Reviews: a buyer reviews the supplier it awarded (POST
/api/v1/requests/quotations/{quotation_id}/review), anybody reads a company's reviews (GET
/api/v1/companies/{slug}/reviews, public, paged like every list) or one review, the supplier's
owner or an admin replies (POST /api/v1/reviews/{review_id}/reply), operators hide and restore
(POST /api/v1/operator/reviews/{review_id}/hide and /restore). docs/adr/0025-reviews.md.

Another company's quotation, a review one may not see, and a company not in good standing
answer like missing ones (404); the supplier reviewing its own quotation, a plain member
replying and anybody but an operator moderating answer 403; a quotation not awarded, a second
review of the same award and a reply past its 48 hours 409. Refusals become problem documents
in one place, `api/urls.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import Router, Schema, Status
from pydantic import Field

from tradepost.api.auth import API_AUTH, PUBLIC_AUTH, PUBLIC_OPENAPI, caller
from tradepost.api.bodies import JsonBody
from tradepost.api.pagination import Rows, paged
from tradepost.api.problems import not_found
from tradepost.api.refs import CompanyRef
from tradepost.catalog.public_companies import get_public_company
from tradepost.companies.models import Company
from tradepost.core.languages import normalise_ui_language
from tradepost.reviews import selectors, services
from tradepost.reviews.models import Review
from tradepost.sourcing.selectors import access_quotation

router = Router(tags=["reviews"])

# --- schemas ---------------------------------------------------------------------------------


class ReviewIn(JsonBody):
    rating: int = Field(description="Stars, a whole number from 1 to 5")
    text: str = Field(description="How the order went (at most 2,000 characters, plain text)")


class ReplyIn(JsonBody):
    reply: str = Field(
        description="The supplier's public answer (at most 2,000 characters); it may be "
        "changed for 48 hours after it is first posted"
    )


class HideIn(JsonBody):
    reason: str = Field(
        description="Why the review is hidden (at most 1,000 characters); the two companies read it"
    )


class ReviewOut(Schema):
    id: int
    supplier: CompanyRef
    buyer: CompanyRef | None = Field(description="Null when the company no longer exists")
    request_title: str = Field(description="What was bought, as the request was titled")
    rating: int
    text: str
    created_at: datetime
    reply: str = Field(description="The supplier's reply; empty when there is none")
    replied_at: datetime | None
    reply_updated_at: datetime | None
    status: str = Field(
        description="published or hidden (hidden ones: operators and the two companies)"
    )
    hidden_reason: str


class ModeratedReviewOut(ReviewOut):
    changed: bool = Field(description="False when it was so already")


# --- helpers ---------------------------------------------------------------------------------


def _ref(company: Company | None, language: str) -> dict[str, Any] | None:
    if company is None:
        return None
    return {"id": company.pk, "slug": company.slug, "name": company.name_for(language)}


def _review_out(review: Review) -> dict[str, Any]:
    language = normalise_ui_language(get_language())
    return {
        "id": review.pk,
        "supplier": _ref(review.supplier, language),
        "buyer": _ref(review.buyer, language),
        "request_title": review.request_title,
        "rating": review.rating,
        "text": review.text,
        "created_at": review.created_at,
        "reply": review.reply,
        "replied_at": review.replied_at,
        "reply_updated_at": review.reply_updated_at,
        "status": review.status,
        "hidden_reason": review.hidden_reason,
    }


# --- endpoints -------------------------------------------------------------------------------


@router.post(
    "/requests/quotations/{int:quotation_id}/review",
    response={201: ReviewOut},
    auth=API_AUTH,
    summary="Review the supplier of a quotation your company awarded (once per award)",
)
def review_create(
    request: HttpRequest, quotation_id: int, payload: ReviewIn
) -> Status[dict[str, Any]]:
    user = caller(request)
    quotation = access_quotation(user=user, quotation_id=quotation_id)
    review = services.review_create(actor=user, quotation=quotation, **payload.dict())
    return Status(201, _review_out(review))


@router.get(
    "/companies/{slug}/reviews",
    response=list[ReviewOut],
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="A company's reviews, newest first (public)",
)
@paged()
def company_reviews(request: HttpRequest, slug: str) -> Rows:
    """Published reviews; the company's own members and operators also get the hidden ones."""
    company = get_public_company(slug[:80])
    if company is None:
        raise not_found(_("There is no company with this slug."))
    reviews = selectors.company_reviews(company=company, viewer=caller(request)).select_related(
        "supplier"
    )
    return Rows(reviews, render=_review_out)


@router.get(
    "/reviews/{int:review_id}",
    response=ReviewOut,
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="One review",
)
def review_detail(request: HttpRequest, review_id: int) -> dict[str, Any]:
    return _review_out(selectors.access_review(user=caller(request), review_id=review_id))


@router.post(
    "/reviews/{int:review_id}/reply",
    response=ReviewOut,
    auth=API_AUTH,
    summary="Reply to a review of your company (owner or admin; changeable for 48 hours)",
)
def review_reply(request: HttpRequest, review_id: int, payload: ReplyIn) -> dict[str, Any]:
    user = caller(request)
    review = selectors.access_review_for_reply(user=user, review_id=review_id)
    return _review_out(services.review_reply(actor=user, review=review, **payload.dict()))


@router.post(
    "/operator/reviews/{int:review_id}/hide",
    response=ModeratedReviewOut,
    auth=API_AUTH,
    summary="Hide a review from the company's page and its average (operators)",
)
def review_hide(request: HttpRequest, review_id: int, payload: HideIn) -> dict[str, Any]:
    user = caller(request)
    review = selectors.access_review(user=user, review_id=review_id)
    done = services.review_hide(actor=user, review=review, **payload.dict())
    return {**_review_out(done.review), "changed": done.changed}


@router.post(
    "/operator/reviews/{int:review_id}/restore",
    response=ModeratedReviewOut,
    auth=API_AUTH,
    summary="Show a hidden review again (operators)",
)
def review_restore(request: HttpRequest, review_id: int) -> dict[str, Any]:
    user = caller(request)
    review = selectors.access_review(user=user, review_id=review_id)
    done = services.review_restore(actor=user, review=review)
    return {**_review_out(done.review), "changed": done.changed}

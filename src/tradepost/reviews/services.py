"""Writes of the reviews app: a buyer reviews the supplier whose quotation it awarded, the
supplier replies, an operator hides or restores a review (docs/adr/0025-reviews.md).

Each function checks the actor's right itself (the rules are in `reviews.selectors`, so the
pages show the same reasons), runs in one transaction and queues its emails on commit. The
supplier's totals (`Company.review_count`, `review_rating_sum`) change in the transaction that
changes a review: the supplier's row is locked first, then the published reviews are counted
again, so reviews written at the same moment queue behind each other and the totals are always
those of the stored reviews (a total drifted by hand is repaired by the next change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, Unpack

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.selectors import require_operator
from tradepost.audit.services import audit_record
from tradepost.companies.models import Company, Membership
from tradepost.companies.services import companies_lock_for_reviews, companies_review_totals_set
from tradepost.core.cleaning import (
    FieldErrors,
    clean_text,
    clean_whole_number,
    refuse_unstorable,
)
from tradepost.core.languages import normalise_ui_language
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import link_in, notification_create, queue_email
from tradepost.reviews.errors import ReviewError, ReviewErrorCode, ReviewNotFound
from tradepost.reviews.models import Review, ReviewStatus
from tradepost.reviews.selectors import (
    REPLYING_ROLES,
    not_awarded,
    published_totals,
    reply_refusal,
    review_refusal,
)
from tradepost.sourcing.models import Quotation, QuotationStatus

RATING_MIN, RATING_MAX = 1, 5
TEXT_MAX_LENGTH = 2000
REPLY_MAX_LENGTH = 2000
HIDE_REASON_MAX_LENGTH = 1000
#: The page of a company's reviews (as reversed in English, for notifications).
REVIEWS_PAGE = "reviews:company_reviews"


class ReviewFields(TypedDict, total=False):
    """What a buyer writes in a review: the input of `review_create`. The web form and the
    API body send these names; tests/test_input_layer.py keeps the three in step."""

    rating: int | str | None
    text: str


REVIEW_FIELDS = frozenset(ReviewFields.__annotations__)


class ReplyFields(TypedDict, total=False):
    """What the supplier writes back: the input of `review_reply`."""

    reply: str


REPLY_FIELDS = frozenset(ReplyFields.__annotations__)


# --- cleaning --------------------------------------------------------------------------------


def _clean_rating(value: Any) -> int | None:
    return clean_whole_number(
        value,
        low=RATING_MIN,
        high=RATING_MAX,
        required=True,
        range_message=_("Give a rating from %(low)d to %(high)d stars."),
    )


def _clean_long_text(value: Any, *, max_length: int) -> str:
    """Several lines of plain text, stored as typed and escaped when shown."""
    text = clean_text(value, max_length=max_length, required=True, single_line=False)
    return refuse_unstorable(text)


def _unknown_fields(fields: dict[str, Any], known: frozenset[str], errors: FieldErrors) -> None:
    for name in sorted(set(fields) - known):
        errors.add(name, _("This field is not known here."))


def _clean_review(fields: dict[str, Any]) -> tuple[int, str]:
    errors = FieldErrors()
    _unknown_fields(fields, REVIEW_FIELDS, errors)
    rating = errors.clean("rating", _clean_rating, fields.get("rating"))
    text = errors.clean("text", _clean_long_text, fields.get("text"), max_length=TEXT_MAX_LENGTH)
    errors.raise_if_any(ReviewError, ReviewErrorCode.INVALID)
    return rating or RATING_MIN, text or ""


# --- the supplier's totals -------------------------------------------------------------------


def _lock_suppliers(company_ids: list[int]) -> dict[int, Company]:
    """The suppliers' rows, locked in id order (every review write takes them first)."""
    locked = companies_lock_for_reviews(company_ids=company_ids)
    if len(locked) != len(set(company_ids)):
        raise ReviewNotFound()
    return locked


def _lock_supplier(company_id: int) -> Company:
    return _lock_suppliers([company_id])[company_id]


def _recount(company_ids: list[int]) -> None:
    """Store the suppliers' totals as their published reviews are now (their rows locked)."""
    counted = published_totals(company_ids=company_ids)
    companies_review_totals_set(
        totals={pk: (totals.count, totals.rating_sum) for pk, totals in counted.items()}
    )


# --- writing a review ------------------------------------------------------------------------


def _already_reviewed() -> ReviewError:
    return ReviewError(
        ReviewErrorCode.REVIEW_EXISTS,
        _("Your company has already reviewed this supplier for this award."),
    )


@transaction.atomic
def review_create(*, actor: Any, quotation: Quotation, **fields: Unpack[ReviewFields]) -> Review:
    """The buyer's review of the supplier whose quotation it awarded: `rating` (a whole
    number of stars from 1 to 5) and `text` (at most 2,000 characters). Any member of the
    awarding company may write it, once per award (`reviews.selectors.review_refusal` says
    who may not, and why). The supplier's owner and admins are told, in their language."""
    # The award as it is now, its request with it (the caller's copy may be older).
    current = (
        Quotation.objects.select_related("request", "supplier").filter(pk=quotation.pk).first()
    )
    if current is None:
        raise ReviewError(ReviewErrorCode.NOT_ALLOWED, _("No such object."))
    refused = review_refusal(user=actor, quotation=current)
    if refused is not None:
        raise refused
    rating, text = _clean_review(dict(fields))
    supplier = _lock_supplier(current.supplier_id)
    if Review.objects.filter(quotation_id=current.pk).exists():  # one just written, now visible
        raise _already_reviewed()
    review = Review(
        quotation=current,
        supplier=supplier,
        buyer_id=current.request.buyer_id,
        author=actor,
        request_title=current.request.title[:200],
        rating=rating,
        text=text,
        created_at=timezone.now(),
    )
    ReviewError.clean_model(review, code=ReviewErrorCode.INVALID, validate_constraints=False)
    try:
        with transaction.atomic():
            review.save(force_insert=True)
    except IntegrityError:  # the same award reviewed by a colleague at the same moment
        raise _already_reviewed() from None
    _recount([supplier.pk])
    _tell_supplier(review)
    return review


# --- the supplier's reply --------------------------------------------------------------------


@transaction.atomic
def review_reply(*, actor: Any, review: Review, **fields: Unpack[ReplyFields]) -> Review:
    """The reviewed supplier's answer, shown under the review: written by its owner or an
    admin, once, and changeable for 48 hours after it is first posted. The review's author
    is told of the first reply, in their language."""
    locked = (
        Review.objects.select_for_update().select_related("supplier").filter(pk=review.pk).first()
    )
    if locked is None:
        raise ReviewNotFound()
    now = timezone.now()
    refused = reply_refusal(user=actor, review=locked, now=now)
    if refused is not None:
        raise refused
    errors = FieldErrors()
    _unknown_fields(dict(fields), REPLY_FIELDS, errors)
    reply = errors.clean(
        "reply", _clean_long_text, fields.get("reply"), max_length=REPLY_MAX_LENGTH
    )
    errors.raise_if_any(ReviewError, ReviewErrorCode.INVALID)
    first = locked.replied_at is None
    locked.reply = reply or ""
    locked.reply_author = actor
    if first:
        locked.replied_at = now
    else:
        locked.reply_updated_at = now
    ReviewError.clean_model(locked, code=ReviewErrorCode.INVALID, validate_constraints=False)
    locked.save(update_fields=["reply", "reply_author", "replied_at", "reply_updated_at"])
    if first:
        _tell_author(locked)
    return locked


# --- moderation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Moderated:
    """The review after an operator's action, and whether anything changed (hiding what is
    hidden changes nothing)."""

    review: Review
    changed: bool


def _locked_for_moderation(review: Review) -> Review:
    """The supplier's row, then the review's, locked (the order every review write takes)."""
    supplier_id = Review.objects.filter(pk=review.pk).values_list("supplier_id", flat=True).first()
    if supplier_id is None:
        raise ReviewNotFound()
    _lock_supplier(supplier_id)
    locked = Review.objects.select_for_update().filter(pk=review.pk).first()
    if locked is None:
        raise ReviewNotFound()
    return locked


@transaction.atomic
def review_hide(*, actor: Any, review: Review, reason: Any) -> Moderated:
    """An operator hides a review (abusive, off-topic, not about the trade): it leaves the
    company's page and its average; `reason` (required, at most 1,000 characters) is kept
    and shown to the two companies. Audited (`review.hide`)."""
    require_operator(actor)
    errors = FieldErrors()
    why = errors.clean("reason", _clean_long_text, reason, max_length=HIDE_REASON_MAX_LENGTH)
    errors.raise_if_any(ReviewError, ReviewErrorCode.INVALID)
    locked = _locked_for_moderation(review)
    if locked.status == ReviewStatus.HIDDEN:
        return Moderated(locked, changed=False)
    audit_record(
        actor=actor,
        action="review.hide",
        target=locked,
        changes={
            "status": [locked.status, ReviewStatus.HIDDEN],
            "hidden_reason": [locked.hidden_reason or None, why],
        },
    )
    locked.status = ReviewStatus.HIDDEN
    locked.hidden_reason = why or ""
    locked.hidden_at = timezone.now()
    locked.hidden_by = actor
    locked.save(update_fields=["status", "hidden_reason", "hidden_at", "hidden_by"])
    _recount([locked.supplier_id])
    return Moderated(locked, changed=True)


@transaction.atomic
def review_restore(*, actor: Any, review: Review) -> Moderated:
    """An operator shows a hidden review again: back on the page and in the average.
    Audited (`review.restore`)."""
    require_operator(actor)
    locked = _locked_for_moderation(review)
    if locked.status == ReviewStatus.PUBLISHED:
        return Moderated(locked, changed=False)
    audit_record(
        actor=actor,
        action="review.restore",
        target=locked,
        changes={"status": [locked.status, ReviewStatus.PUBLISHED]},
    )
    locked.status = ReviewStatus.PUBLISHED
    locked.hidden_reason = ""
    locked.hidden_at = None
    locked.hidden_by = None
    locked.save(update_fields=["status", "hidden_reason", "hidden_at", "hidden_by"])
    _recount([locked.supplier_id])
    return Moderated(locked, changed=True)


# --- a recorded past (the demo) --------------------------------------------------------------


@dataclass(frozen=True)
class PastReview:
    """A review written in the past (the demo's), on an awarded quotation, with its reply."""

    quotation: Quotation
    rating: int
    text: str
    written_at: datetime
    reply: str = ""
    replied_at: datetime | None = None


@transaction.atomic
def reviews_record_history(*, actor: Any, reviews: Sequence[PastReview]) -> list[Review]:
    """Write reviews of the past at once (operators only: the demo marketplace), each on an
    awarded quotation not reviewed yet, by the person who posted the request, then the
    suppliers' totals. Nobody is notified; one audit entry per supplier."""
    require_operator(actor)
    rows = []
    for past in reviews:
        quotation = past.quotation
        request = quotation.request
        if quotation.status != QuotationStatus.AWARDED:
            raise not_awarded()
        errors = FieldErrors()
        rating = errors.clean("rating", _clean_rating, past.rating)
        text = errors.clean("text", _clean_long_text, past.text, max_length=TEXT_MAX_LENGTH)
        reply = (
            errors.clean("reply", _clean_long_text, past.reply, max_length=REPLY_MAX_LENGTH)
            if past.reply
            else ""
        )
        errors.raise_if_any(ReviewError, ReviewErrorCode.INVALID)
        rows.append(
            Review(
                quotation=quotation,
                supplier_id=quotation.supplier_id,
                buyer_id=request.buyer_id,
                author_id=request.created_by_id,
                request_title=request.title[:200],
                rating=rating or RATING_MIN,
                text=text or "",
                reply=reply or "",
                replied_at=past.replied_at if reply else None,
                created_at=past.written_at,
            )
        )
    suppliers = _lock_suppliers(sorted({row.supplier_id for row in rows}))
    try:
        with transaction.atomic():
            created = Review.objects.bulk_create(rows)
    except IntegrityError:
        raise _already_reviewed() from None
    _recount(list(suppliers))
    written = Counter(row.supplier_id for row in rows)
    for supplier_id, supplier in suppliers.items():
        audit_record(
            actor=actor,
            action="review.history_record",
            target=supplier,
            changes={"reviews": [None, written[supplier_id]]},
        )
    return created


# --- telling the other company ---------------------------------------------------------------


def _reviews_path(company: Company) -> str:
    with translation.override("en"):
        return reverse(REVIEWS_PAGE, args=[company.slug])


def _reviews_link(company: Company, language: str) -> str:
    return link_in(language, REVIEWS_PAGE, args=[company.slug])


def _tell_supplier(review: Review) -> None:
    """A notification and an email, each in the reader's language, to the supplier's owner
    and admins (who may reply)."""
    supplier, buyer = review.supplier, review.buyer
    managers = (
        Membership.objects.filter(
            company_id=supplier.pk, role__in=REPLYING_ROLES, user__is_active=True
        )
        .select_related("user")
        .order_by("pk")
    )
    path = _reviews_path(supplier)
    for membership in managers:
        user = membership.user
        language = normalise_ui_language(user.preferred_language)
        buyer_name = buyer.name_for(language) if buyer is not None else ""
        notification_create(
            recipient=user,
            kind=NotificationKind.REVIEW_RECEIVED,
            params={
                "company": buyer_name,
                "rating": review.rating,
                "subject": review.request_title,
            },
            link=path,
        )
        queue_email(
            to=user.email,
            subject=gettext_lazy("A buyer has reviewed your company on Tradepost"),
            template="reviews_received",
            context={
                "buyer_name": buyer_name,
                "rating": review.rating,
                "request_title": review.request_title,
                "text": review.text,
                "link": _reviews_link(supplier, language),
            },
            language=language,
        )


def _tell_author(review: Review) -> None:
    """A notification and an email to the review's author (in their language) when the
    supplier first replies."""
    author = review.author
    if author is None or not author.is_active:
        return
    language = normalise_ui_language(author.preferred_language)
    supplier_name = review.supplier.name_for(language)
    notification_create(
        recipient=author,
        kind=NotificationKind.REVIEW_REPLIED,
        params={"company": supplier_name, "subject": review.request_title},
        link=_reviews_path(review.supplier),
    )
    queue_email(
        to=author.email,
        subject=gettext_lazy("A supplier has replied to your review on Tradepost"),
        template="reviews_replied",
        context={
            "supplier_name": supplier_name,
            "reply": review.reply,
            "link": _reviews_link(review.supplier, language),
        },
        language=language,
    )

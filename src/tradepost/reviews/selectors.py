"""Reads of reviews; `access_*` are the only way to fetch a review for a user, and the rules of
who may review and reply are read here (the services apply them again under their locks).

A published review of a company in good standing is public. A hidden one is seen by the
operators and by the members of the two companies it concerns; for anybody else it does not
exist (404, like a missing id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator, user_can_publish
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Role, Standing
from tradepost.companies.selectors import standing_refusal
from tradepost.core.ids import parse_id
from tradepost.reviews.errors import ReviewError, ReviewErrorCode, ReviewNotFound
from tradepost.reviews.models import Review, ReviewStatus
from tradepost.sourcing.models import Quotation, QuotationStatus

#: How long the supplier may still change its reply after posting it.
REPLY_EDIT_WINDOW = timedelta(hours=48)
#: The roles of a supplier's members who answer its reviews (they speak for the company).
REPLYING_ROLES = frozenset({Role.OWNER, Role.ADMIN})
#: Reviews a company page shows before its link to all of them.
LATEST_ON_COMPANY_PAGE = 3


def _review(review_id: Any) -> Review | None:
    pk = parse_id(review_id)
    if pk is None:
        return None
    return (
        Review.objects.select_related("supplier", "buyer", "author", "reply_author")
        .filter(pk=pk)
        .first()
    )


def _concerns(user: Any, review: Review) -> bool:
    """Whether `user` acts for the reviewed supplier or the reviewing buyer."""
    membership = actor_for(user).membership
    return membership is not None and membership.company_id in (
        review.supplier_id,
        review.buyer_id,
    )


def is_public(review: Review) -> bool:
    return review.status == ReviewStatus.PUBLISHED and review.supplier.standing == Standing.ACTIVE


def access_review(*, user: Any, review_id: Any) -> Review:
    """A review `user` may read: a published review of a company in good standing for
    anybody; any other for operators and the two companies' members. ReviewNotFound else."""
    review = _review(review_id)
    if review is None:
        raise ReviewNotFound()
    if is_public(review) or is_operator(user) or _concerns(user, review):
        return review
    raise ReviewNotFound()


def access_review_for_reply(*, user: Any, review_id: Any) -> Review:
    """A review of the company `user` acts for (whatever their role there: the reply service
    says who may answer). ReviewNotFound for every other review, as for a missing one."""
    review = _review(review_id)
    membership = actor_for(user).membership
    if review is None or membership is None or membership.company_id != review.supplier_id:
        raise ReviewNotFound()
    return review


def company_reviews(*, company: Company, viewer: Any = None) -> QuerySet[Review]:
    """The company's reviews as a supplier, newest first, with what their rows show: the
    published ones, and the hidden ones too for operators and the company's own members."""
    reviews = Review.objects.filter(supplier=company)
    membership = actor_for(viewer).membership
    own = membership is not None and membership.company_id == company.pk
    if not (own or is_operator(viewer)):
        reviews = reviews.filter(status=ReviewStatus.PUBLISHED)
    return reviews.select_related("buyer", "author", "reply_author").order_by("-created_at", "-id")


def latest_reviews(*, company: Company, limit: int = LATEST_ON_COMPANY_PAGE) -> list[Review]:
    """The newest published reviews, for the company's page (no query when its totals say it
    has none)."""
    if not company.review_count:
        return []
    reviews = Review.objects.filter(supplier=company, status=ReviewStatus.PUBLISHED)
    return list(reviews.select_related("buyer").order_by("-created_at", "-id")[:limit])


def review_of_quotation(*, quotation: Quotation) -> Review | None:
    return Review.objects.filter(quotation_id=quotation.pk).first()


def review_refusal(*, user: Any, quotation: Quotation) -> ReviewError | None:
    """Why `user` may not review the supplier of `quotation` now (None: they may).

    Any member of the buyer company that awarded the quotation may review its supplier, once
    per award, once the award is made: the review speaks for the company, as the award did.
    The supplier's own people, other companies, and a quotation that was not awarded are
    refused, each with its reason."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return ReviewError(ReviewErrorCode.NOT_ALLOWED, _("No such object."))
    company = actor_for(user).company
    if company is None:
        return ReviewError(ReviewErrorCode.NO_COMPANY, _("Create or join a company first."))
    if company.pk == quotation.supplier_id:
        return ReviewError(
            ReviewErrorCode.OWN_COMPANY, _("A company cannot review its own quotation.")
        )
    if company.pk != quotation.request.buyer_id:
        return ReviewError(ReviewErrorCode.NOT_ALLOWED, _("No such object."))
    if not user_can_publish(user):
        return ReviewError(
            ReviewErrorCode.EMAIL_NOT_VERIFIED, _("Verify your email address first.")
        )
    suspended = standing_refusal(company)
    if suspended:
        return ReviewError(ReviewErrorCode.COMPANY_SUSPENDED, suspended)
    if (
        quotation.status != QuotationStatus.AWARDED
        or quotation.request.awarded_quotation_id != quotation.pk
    ):
        return not_awarded()
    if Review.objects.filter(quotation_id=quotation.pk).exists():
        return ReviewError(
            ReviewErrorCode.REVIEW_EXISTS,
            _("Your company has already reviewed this supplier for this award."),
        )
    return None


def not_awarded() -> ReviewError:
    return ReviewError(
        ReviewErrorCode.NOT_AWARDED,
        _("Only the supplier whose quotation you awarded can be reviewed, after the award."),
    )


def reply_editable_until(review: Review) -> datetime | None:
    """Until when the posted reply may still be changed (None: no reply yet)."""
    if review.replied_at is None:
        return None
    return review.replied_at + REPLY_EDIT_WINDOW


def reply_refusal(*, user: Any, review: Review, now: datetime | None = None) -> ReviewError | None:
    """Why `user` may not reply to `review` (or change the reply) now; None: they may.

    The owner and the admins of the reviewed company reply, once; the reply may be changed
    for `REPLY_EDIT_WINDOW` after it is first posted."""
    membership = actor_for(user).membership
    if membership is None or membership.company_id != review.supplier_id:
        return ReviewError(ReviewErrorCode.NOT_ALLOWED, _("No such object."))
    if membership.role not in REPLYING_ROLES:
        return ReviewError(
            ReviewErrorCode.PERMISSION_DENIED,
            _("Only the owner and the admins of the company may reply to its reviews."),
        )
    if not user_can_publish(user):
        return ReviewError(
            ReviewErrorCode.EMAIL_NOT_VERIFIED, _("Verify your email address first.")
        )
    suspended = standing_refusal(membership.company)
    if suspended:
        return ReviewError(ReviewErrorCode.COMPANY_SUSPENDED, suspended)
    until = reply_editable_until(review)
    if until is not None and (now or timezone.now()) > until:
        return ReviewError(
            ReviewErrorCode.REPLY_LOCKED,
            _(
                "A reply can be changed for %(hours)d hours after it is posted; this one no "
                "longer can."
            )
            % {"hours": REPLY_EDIT_WINDOW // timedelta(hours=1)},
        )
    return None


def replies_for(*, user: Any, company: Company) -> bool:
    """Whether `user` answers `company`'s reviews (its owner or an admin, able to publish)."""
    membership = actor_for(user).membership
    return (
        membership is not None
        and membership.company_id == company.pk
        and membership.role in REPLYING_ROLES
        and user_can_publish(user)
        and standing_refusal(membership.company) is None
    )


def reply_open(review: Review, *, now: datetime | None = None) -> bool:
    """Whether the reply may still be written or changed (by someone who `replies_for`)."""
    until = reply_editable_until(review)
    return until is None or (now or timezone.now()) <= until


@dataclass(frozen=True)
class Totals:
    """A supplier's published reviews: how many, and the sum of their ratings."""

    count: int
    rating_sum: int


def published_totals(*, company_ids: Iterable[int]) -> dict[int, Totals]:
    """Each company's published reviews, counted from the reviews themselves (the services
    store this on the company); a company without any counts (0, 0)."""
    ids = sorted(set(company_ids))
    found = {company_id: Totals(count=0, rating_sum=0) for company_id in ids}
    rows = (
        Review.objects.filter(supplier_id__in=ids, status=ReviewStatus.PUBLISHED)
        .values("supplier_id")
        .annotate(count=Count("id"), rating_sum=Sum("rating"))
        .order_by()
    )
    for row in rows:
        found[row["supplier_id"]] = Totals(count=row["count"], rating_sum=row["rating_sum"] or 0)
    return found

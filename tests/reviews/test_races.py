"""Reviews written at the same moment on real connections (PostgreSQL; SQLite serialises
writers): twenty buyers reviewing one supplier at once leave its count and average those of
the stored reviews, and the members of one buyer reviewing the same award at once leave one
review."""

from __future__ import annotations

import random

from tests.factories.accounts import make_operator
from tests.factories.companies import add_member, make_trader
from tests.factories.reviews import make_award
from tests.races import ON_CONCURRENT_WRITERS
from tradepost.companies.models import Company
from tradepost.reviews import services
from tradepost.reviews.errors import ReviewError, ReviewErrorCode
from tradepost.reviews.models import Review

pytestmark = ON_CONCURRENT_WRITERS

BUYERS = 20


def test_twenty_reviews_of_one_supplier_at_once_keep_its_totals(race):
    supplier_owner, supplier = make_trader()
    awards = [make_award(supplier=supplier_owner) for _ in range(BUYERS)]
    rng = random.Random(7)
    ratings = [rng.randint(1, 5) for _ in awards]
    results = race(
        *(
            lambda buyer=buyer, quotation=quotation, rating=rating: services.review_create(
                actor=buyer, quotation=quotation, rating=rating, text="Delivered."
            )
            for (buyer, _supplier, quotation), rating in zip(awards, ratings, strict=True)
        )
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    supplier.refresh_from_db()
    assert supplier.review_count == BUYERS
    assert supplier.review_rating_sum == sum(ratings)
    assert Review.objects.filter(supplier=supplier).count() == BUYERS


def test_reviews_and_hides_at_once_keep_the_totals(race):
    """Half the buyers review while an operator hides the reviews written before."""
    supplier_owner, supplier = make_trader()
    operator = make_operator()
    earlier = []
    for rating in (1, 2, 3, 4, 5, 1, 2, 3, 4, 5):
        buyer, _supplier, quotation = make_award(supplier=supplier_owner)
        earlier.append(
            services.review_create(actor=buyer, quotation=quotation, rating=rating, text="x")
        )
    awards = [make_award(supplier=supplier_owner) for _ in range(10)]
    calls = [
        lambda buyer=buyer, quotation=quotation: services.review_create(
            actor=buyer, quotation=quotation, rating=5, text="Fine."
        )
        for buyer, _supplier, quotation in awards
    ] + [
        lambda review=review: services.review_hide(actor=operator, review=review, reason="Spam.")
        for review in earlier
    ]
    results = race(*calls)
    assert not [r for r in results if isinstance(r, Exception)], results
    supplier.refresh_from_db()
    assert (supplier.review_count, supplier.review_rating_sum) == (10, 50)


def test_colleagues_reviewing_one_award_at_once_write_one_review(race):
    buyer, _supplier, quotation = make_award()
    company = Company.objects.get(memberships__user=buyer)
    colleagues = [buyer] + [add_member(company) for _ in range(7)]
    results = race(
        *(
            lambda person=person: services.review_create(
                actor=person, quotation=quotation, rating=3, text="Same order."
            )
            for person in colleagues
        )
    )
    written = [r for r in results if isinstance(r, Review)]
    refused = [r for r in results if isinstance(r, ReviewError)]
    assert len(written) == 1 and len(refused) == len(colleagues) - 1, results
    assert {r.code for r in refused} == {ReviewErrorCode.REVIEW_EXISTS}
    assert Review.objects.filter(quotation=quotation).count() == 1
    supplier = Company.objects.get(pk=quotation.supplier_id)
    assert (supplier.review_count, supplier.review_rating_sum) == (1, 3)

"""A supplier's average and count, kept on the company by the services, against the same
figures worked out here from the ratings the test gave (never read back from the reviews)."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest

from tests.factories.accounts import make_operator
from tests.factories.companies import make_trader
from tests.factories.reviews import make_award
from tradepost.companies.models import Company
from tradepost.reviews import services
from tradepost.reviews.models import Review

pytestmark = pytest.mark.django_db


def _expected(ratings: list[int]) -> tuple[int, Decimal | None]:
    if not ratings:
        return 0, None
    mean = Fraction(sum(ratings), len(ratings))
    # One decimal place, halves up: 4.25 -> 4.3 (Fraction keeps it exact).
    tenths = int(mean * 10 + Fraction(1, 2))
    return len(ratings), Decimal(tenths) / 10


def _shown(company: Company) -> tuple[int, Decimal | None]:
    company.refresh_from_db()
    return company.review_count, company.review_average


def test_average_and_count_follow_every_review_hide_and_restore():
    rng = random.Random(14)
    supplier_owner, supplier = make_trader()
    operator = make_operator()
    visible: dict[int, int] = {}  # review id -> rating, as this test keeps them
    assert _shown(supplier) == (0, None)
    for number in range(12):
        buyer, _company = make_trader(country="NL")
        _buyer, _supplier, quotation = make_award(buyer=buyer, supplier=supplier_owner)
        rating = rng.randint(1, 5)
        review = services.review_create(
            actor=buyer, quotation=quotation, rating=rating, text=f"Order {number}."
        )
        visible[review.pk] = rating
        assert _shown(supplier) == _expected(list(visible.values()))
        if number % 4 == 3:  # an operator hides one of those written so far
            hidden = rng.choice(sorted(visible))
            services.review_hide(
                actor=operator, review=Review.objects.get(pk=hidden), reason="Spam."
            )
            del visible[hidden]
            assert _shown(supplier) == _expected(list(visible.values()))
    for review in Review.objects.filter(status="hidden"):
        services.review_restore(actor=operator, review=review)
        visible[review.pk] = review.rating
        assert _shown(supplier) == _expected(list(visible.values()))
    assert supplier.review_rating_sum == sum(visible.values())


@pytest.mark.parametrize(
    ("ratings", "shown"),
    [
        ([5], "5.0"),
        ([5, 4], "4.5"),
        ([5, 4, 4], "4.3"),  # 4.333...
        ([5, 5, 4, 3], "4.3"),  # 4.25, halves up
        ([1, 2], "1.5"),
        ([5, 5, 5, 5, 5, 5, 4], "4.9"),  # 4.857...
    ],
)
def test_the_average_is_rounded_to_one_decimal_half_up(ratings, shown):
    supplier = Company(review_count=len(ratings), review_rating_sum=sum(ratings))
    assert str(supplier.review_average) == shown
    assert _expected(ratings)[1] == Decimal(shown)


def test_reviews_of_other_suppliers_do_not_count():
    first_owner, first = make_trader()
    second_owner, second = make_trader()
    for owner, rating in ((first_owner, 5), (second_owner, 1), (first_owner, 3)):
        buyer, _quotation_buyer, quotation = make_award(supplier=owner)
        services.review_create(actor=buyer, quotation=quotation, rating=rating, text="Fine.")
    assert _shown(first) == (2, Decimal("4.0"))
    assert _shown(second) == (1, Decimal("1.0"))


def test_totals_set_by_hand_are_repaired_by_the_next_review():
    supplier_owner, supplier = make_trader()
    buyer, _company, quotation = make_award(supplier=supplier_owner)
    services.review_create(actor=buyer, quotation=quotation, rating=2, text="Late.")
    Company.objects.filter(pk=supplier.pk).update(review_count=7, review_rating_sum=35)
    buyer, _company, quotation = make_award(supplier=supplier_owner)
    services.review_create(actor=buyer, quotation=quotation, rating=5, text="Great.")
    assert _shown(supplier) == (2, Decimal("3.5"))


def test_an_operators_edit_of_the_company_keeps_the_totals(client):
    """The admin saves the whole company row: it must not write back totals it read before a
    review arrived."""
    from tradepost.companies.services import company_save_by_operator

    supplier_owner, supplier = make_trader()
    stale = Company.objects.get(pk=supplier.pk)  # read by the admin's form
    buyer, _company, quotation = make_award(supplier=supplier_owner)
    services.review_create(actor=buyer, quotation=quotation, rating=4, text="Good.")
    stale.city = "Ningbo"
    company_save_by_operator(actor=make_operator(), company=stale, fields=["city"])
    assert _shown(supplier) == (1, Decimal("4.0"))
    supplier.refresh_from_db()
    assert supplier.city == "Ningbo"

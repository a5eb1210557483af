"""The demo marketplace's reviews: written for the awarded requests (not the demo buyer's own,
left for the demo login to review), in the buyer's language, some with the supplier's reply,
and the suppliers' totals those of the stored reviews."""

from __future__ import annotations

import io
import time
from collections import defaultdict
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tradepost.companies.models import Company
from tradepost.demo import services as demo_services
from tradepost.demo.reviews import AwardFacts, plan_reviews
from tradepost.reviews.models import Review
from tradepost.sourcing.models import Quotation, QuotationStatus

SMALL = ["--companies", "30", "--products", "200"]


def _awards(count: int, now) -> list[AwardFacts]:
    return [
        AwardFacts(
            quotation_id=number,
            closed_at=now - timedelta(days=number),
            buyer_language=("en", "zh-hans", "zh-hant")[number % 3],
            supplier_language="zh-hans",
            demo_buyer=number == 0,
        )
        for number in range(count)
    ]


def test_the_plan_follows_the_seed_and_skips_the_demo_buyer():
    now = timezone.now()
    awards = _awards(40, now)
    first = plan_reviews(seed=1, awards=awards, now=now)
    assert first == plan_reviews(seed=1, awards=awards, now=now)
    assert first != plan_reviews(seed=2, awards=awards, now=now)
    assert 0 not in {review.quotation_id for review in first}
    assert 20 <= len(first) < 40
    assert all(1 <= review.rating <= 5 and review.written_at <= now for review in first)
    assert any(review.reply for review in first) and any(not review.reply for review in first)


@pytest.mark.django_db
def test_the_demo_writes_reviews_of_its_awards(category_tree, shared_media, monkeypatch):
    timings = []
    write = demo_services._write_reviews

    def timed(*args, **kwargs):
        started = time.perf_counter()
        write(*args, **kwargs)
        timings.append(time.perf_counter() - started)

    monkeypatch.setattr(demo_services, "_write_reviews", timed)
    out = io.StringIO()
    call_command("demo", *SMALL, stdout=out)
    reviews = list(Review.objects.select_related("quotation__request", "supplier"))
    awarded = Quotation.objects.filter(status=QuotationStatus.AWARDED)
    assert 1 <= len(reviews) <= awarded.count()
    assert "Reviews: " in out.getvalue()
    demo_buyer = Company.objects.get(memberships__user__email="buyer@demo.example")
    by_supplier = defaultdict(list)
    for review in reviews:
        review.full_clean()
        request = review.quotation.request
        assert review.quotation.status == QuotationStatus.AWARDED
        assert review.buyer_id == request.buyer_id != demo_buyer.pk
        assert review.author_id == request.created_by_id
        assert request.closed_at <= review.created_at <= timezone.now()
        if review.reply:
            assert review.created_at <= review.replied_at <= timezone.now()
        by_supplier[review.supplier_id].append(review.rating)
    for company in Company.objects.all():
        ratings = by_supplier.get(company.pk, [])
        assert (company.review_count, company.review_rating_sum) == (len(ratings), sum(ratings))
    # The reviews add little to loading the demo.
    (seconds,) = timings
    assert seconds < 1.0, seconds
    print(f"demo reviews: {len(reviews)} written in {seconds * 1000:.1f} ms")

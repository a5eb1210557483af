"""Reviews can be reported like listings and messages: the reviewed supplier (or anyone
signed in who can read the review) reports it, the operator hides it from the report queue
(through the reviews app: off the page and out of the average, the reason kept), the author's
company is told in its language, the reporter is told the outcome; the author cannot report
its own review, and a hidden review cannot be reported."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api_client import ApiClient
from tests.factories.reviews import make_review
from tests.factories.trust import report
from tests.pages import page_url
from tradepost.audit.models import AuditEntry
from tradepost.notify.models import Notification, NotificationKind
from tradepost.reviews.models import ReviewStatus
from tradepost.trust import services
from tradepost.trust.errors import ReportNotFound, TrustError
from tradepost.trust.models import Report, ReportStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def review(cast):
    """A review of the cast's company (its owner quoted and was awarded) by a Dutch buyer."""
    return make_review(supplier=cast.owner, rating=1, text="They are crooks, call 555-0100!")


def test_the_supplier_reports_a_review_and_the_operator_hides_it(cast, review):
    made = report(cast.owner, "review", review, reason="offensive", note="Not about the trade")
    assert (made.company_id, made.target_label) == (review.buyer_id, review.text[:80].strip())
    cast.company.refresh_from_db()
    assert cast.company.review_count == 1
    services.report_decide(actor=cast.operator, report=made, action="hide")
    review.refresh_from_db()
    assert review.status == ReviewStatus.HIDDEN and review.hidden_reason == "Offensive"
    cast.company.refresh_from_db()
    assert cast.company.review_count == 0  # out of the average
    made.refresh_from_db()
    assert made.status == ReportStatus.ACTIONED
    assert {"review.hide", "report.action"} <= set(
        AuditEntry.objects.values_list("action", flat=True)
    )
    # The author's company is told, with a link to the reviews page; the reporter too.
    hidden = Notification.objects.filter(kind=NotificationKind.MODERATION_HIDDEN)
    assert set(hidden.values_list("recipient__membership__company", flat=True)) == {review.buyer_id}
    assert hidden.first().link == f"/en/companies/{cast.company.slug}/reviews/"
    told = Notification.objects.get(kind=NotificationKind.REPORT_DECIDED)
    assert told.recipient_id == cast.owner.pk
    # Shown again from the moderation form by its id.
    services.moderation_apply(
        actor=cast.operator, target="review", target_id=review.pk, action="restore"
    )
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED


def test_the_author_cannot_report_its_own_review(cast, review):
    with pytest.raises(TrustError):
        report(review.author, "review", review)


def test_a_hidden_review_cannot_be_reported_by_a_stranger(cast, review):
    services.moderation_apply(
        actor=cast.operator, target="review", target_id=review.pk, action="hide", reason="spam"
    )
    with pytest.raises(ReportNotFound):
        report(cast.loner, "review", review)


def test_the_report_link_shows_on_the_reviews_page_and_the_api_takes_reviews(cast, review, client):
    reviews_page = page_url("reviews:company_reviews", slug=cast.company.slug)
    client.force_login(cast.owner)
    html = client.get(reviews_page).content.decode()
    assert f"target=review&amp;target_id={review.pk}" in html
    author = Client()
    author.force_login(review.author)
    assert "target=review" not in author.get(reviews_page).content.decode()
    sent = ApiClient(cast.outsider, base="/api/v1").post(
        "/reports", {"target": "review", "target_id": review.pk, "reason": "spam"}
    )
    assert sent.status_code == 201, sent.content
    missing = ApiClient(cast.outsider, base="/api/v1").post(
        "/reports", {"target": "review", "target_id": 10**9, "reason": "spam"}
    )
    assert missing.status_code == 404
    # The web form of the link opens for the review and sends the report.
    form = page_url("trust:report_create") + f"?target=review&target_id={review.pk}"
    assert client.get(form).status_code == 200
    client.force_login(cast.loner)
    sent = client.post(
        page_url("trust:report_create"),
        {"target": "review", "target_id": review.pk, "reason": "fraud", "note": ""},
    )
    assert sent.status_code == 302
    assert Report.objects.filter(target="review", target_id=review.pk, reporter=cast.loner).exists()

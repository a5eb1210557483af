"""Reviews in the operators' back office: read only; hiding (which asks why) and restoring go
through the reviews services, audited, the supplier's totals counted again."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.urls import reverse

from tests.factories.reviews import review_fields
from tradepost.audit.models import AuditEntry
from tradepost.reviews import services
from tradepost.reviews.models import ReviewStatus

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:reviews_review_changelist"


@pytest.fixture
def review(award):
    return services.review_create(
        actor=award.cast.owner, quotation=award.quotation, **review_fields(rating=2)
    )


def test_hiding_asks_why_then_hides_audited(award, review, client):
    client.force_login(award.cast.operator)
    url = reverse(CHANGELIST)
    assert client.get(url).status_code == 200
    asked = client.post(url, {"action": "hide_selected", helpers.ACTION_CHECKBOX_NAME: [review.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    empty = client.post(
        url,
        {
            "action": "hide_selected",
            helpers.ACTION_CHECKBOX_NAME: [review.pk],
            "apply": "1",
            "reason": "",
        },
    )
    assert empty.status_code == 200 and "This field is required." in empty.content.decode()
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED
    done = client.post(
        url,
        {
            "action": "hide_selected",
            helpers.ACTION_CHECKBOX_NAME: [review.pk],
            "apply": "1",
            "reason": "Names a person.",
        },
    )
    assert done.status_code == 302
    review.refresh_from_db()
    assert (review.status, review.hidden_reason) == (ReviewStatus.HIDDEN, "Names a person.")
    award.supplier.refresh_from_db()
    assert award.supplier.review_count == 0
    client.post(url, {"action": "restore_selected", helpers.ACTION_CHECKBOX_NAME: [review.pk]})
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED
    assert [
        e.action for e in AuditEntry.objects.order_by("pk") if e.action.startswith("review.")
    ] == [
        "review.hide",
        "review.restore",
    ]


def test_nobody_edits_or_deletes_a_review_in_the_admin(award, review, client):
    client.force_login(award.cast.operator)
    change = reverse("admin:reviews_review_change", args=[review.pk])
    response = client.post(change, {"rating": "5", "text": "Rewritten."})
    assert response.status_code in (302, 403)
    assert client.get(reverse("admin:reviews_review_delete", args=[review.pk])).status_code == 403
    review.refresh_from_db()
    assert (review.rating, review.text) == (2, review_fields()["text"])


def test_members_cannot_reach_the_admin(award, review, client):
    client.force_login(award.supplier_owner)
    assert client.get(reverse(CHANGELIST)).status_code == 302  # to the admin's login

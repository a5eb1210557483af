"""Two operators deciding one request at once, and two submissions of one company at once, on
real connections (PostgreSQL only: SQLite runs one write transaction at a time, so there the
second decision is refused by construction; test_services checks that refusal)."""

from __future__ import annotations

import pytest

from tests.factories.accounts import make_operator
from tests.factories.trust import pdf_upload, submit_verification
from tests.races import ON_CONCURRENT_WRITERS, one_decision_wins
from tradepost.audit.models import AuditEntry
from tradepost.notify.models import Notification
from tradepost.trust import services
from tradepost.trust.errors import TrustError, TrustErrorCode
from tradepost.trust.models import VerificationRequest, VerificationStatus

pytestmark = ON_CONCURRENT_WRITERS


@pytest.mark.parametrize("attempt", range(3))
def test_approve_and_reject_at_once_one_decision_wins(cast, race, attempt):
    request = submit_verification(cast.owner)
    other_operator = make_operator()
    results = race(
        lambda: services.verification_approve(
            actor=cast.operator, verification=request, checked=["legal_name"]
        ),
        lambda: services.verification_reject(
            actor=other_operator, verification=request, reason="Blurred scan."
        ),
    )
    refused, decided = one_decision_wins(results, TrustError, VerificationRequest)
    assert refused.code == TrustErrorCode.ALREADY_DECIDED
    request.refresh_from_db()
    assert request.status == decided.status
    cast.company.refresh_from_db()
    assert cast.company.is_verified is (request.status == VerificationStatus.APPROVED)
    decisions = AuditEntry.objects.filter(
        action__in=["verification.approve", "verification.reject"]
    )
    assert decisions.count() == 1
    # One decision told: the owner and the admin, once each.
    assert Notification.objects.count() == 2


def test_two_submissions_at_once_leave_one_request(cast, race):
    results = race(
        *[
            (
                lambda who=who: services.verification_submit(
                    actor=who, company=cast.company, files={"other": [pdf_upload()]}
                )
            )
            for who in (cast.owner, cast.admin, cast.owner)
        ]
    )
    refused = [r for r in results if isinstance(r, TrustError)]
    assert len(refused) == 2, results
    assert {r.code for r in refused} == {TrustErrorCode.ALREADY_PENDING}
    assert VerificationRequest.objects.filter(company=cast.company).count() == 1

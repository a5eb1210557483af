"""Two operators deciding the reports of one target at once, and one person sending reports in
parallel, on real connections (PostgreSQL only: SQLite runs one write transaction at a time, so
there the second decision is refused by construction; test_reports_moderation checks that)."""

from __future__ import annotations

import pytest

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.trust import report
from tests.races import ON_CONCURRENT_WRITERS, one_decision_wins
from tradepost.audit.models import AuditEntry
from tradepost.catalog.models import ProductStatus
from tradepost.notify.models import Notification
from tradepost.trust import services
from tradepost.trust.errors import TrustError, TrustErrorCode
from tradepost.trust.models import Report, ReportStatus

pytestmark = ON_CONCURRENT_WRITERS


@pytest.mark.parametrize("attempt", range(3))
def test_two_operators_on_one_target_one_decision_wins(cast, reported, race, attempt):
    first = report(cast.outsider, "product", reported.product, reason="counterfeit")
    second = report(cast.loner, "product", reported.product, reason="spam")
    other_operator = make_operator()
    results = race(
        lambda: services.report_decide(
            actor=cast.operator, report=first, action="hide", message="Fake logos."
        ),
        # The other operator decides the other report of the same listing.
        lambda: services.report_decide(actor=other_operator, report=second, action="dismiss"),
    )
    refused, _decided = one_decision_wins(results, TrustError, Report)
    assert refused.code == TrustErrorCode.REPORT_DECIDED
    statuses = set(Report.objects.values_list("status", "action"))
    assert len(statuses) == 1  # both reports closed by the same decision
    (status, action) = statuses.pop()
    reported.product.refresh_from_db()
    hidden = reported.product.status == ProductStatus.HIDDEN
    assert hidden is (action == "hide")
    assert status == (ReportStatus.ACTIONED if hidden else ReportStatus.DISMISSED)
    assert AuditEntry.objects.filter(action__startswith="report.").count() == 2
    assert AuditEntry.objects.filter(action="product.hide").count() == (1 if hidden else 0)
    # The owner and the admin told once, or nobody when the reports were dismissed.
    assert Notification.objects.filter(kind="moderation_hidden").count() == (2 if hidden else 0)


def test_the_same_report_sent_twice_at_once_is_kept_once(cast, reported, race):
    results = race(
        *[(lambda: report(cast.outsider, "product", reported.product)) for _ in range(3)]
    )
    refused = [r for r in results if isinstance(r, TrustError)]
    assert len(refused) == 2, results
    assert {r.code for r in refused} == {TrustErrorCode.REPORT_DUPLICATE}
    assert Report.objects.count() == 1


def test_parallel_reports_do_not_pass_the_daily_limit(cast, race, settings):
    settings.TRADEPOST_REPORTS_PER_DAY = 2
    products = [make_product() for _ in range(5)]
    results = race(
        *[(lambda product=product: report(cast.loner, "product", product)) for product in products]
    )
    refused = [r for r in results if isinstance(r, TrustError)]
    assert {r.code for r in refused} == {TrustErrorCode.REPORT_RATE_LIMIT}, results
    assert Report.objects.count() == 2

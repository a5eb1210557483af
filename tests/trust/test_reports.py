"""Reporting (trust.services.report_submit): who may report what, what they cannot see answers
like a missing object, one open report per person and target, a daily limit, and the input
refused field by field."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from freezegun import freeze_time

from tests.factories.accounts import make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_request
from tests.factories.trust import report
from tests.trust.conftest import KINDS
from tradepost.accounts.models import ThrottleHit
from tradepost.accounts.throttle import throttle
from tradepost.catalog.models import ProductStatus
from tradepost.companies.models import Standing
from tradepost.messaging import services as messaging_services
from tradepost.sourcing import services as sourcing_services
from tradepost.trust import services
from tradepost.trust.errors import ReportNotFound, TrustError, TrustErrorCode
from tradepost.trust.models import Report, ReportStatus

pytestmark = pytest.mark.django_db

#: Who reports, and what happens for each kind of target: "ok", a refusal's code.
MATRIX = {
    "anonymous": dict.fromkeys(KINDS, TrustErrorCode.PERMISSION_DENIED),
    # Signed in without a company: public things only; a conversation is not theirs.
    "loner": {**dict.fromkeys(KINDS, "ok"), "message": TrustErrorCode.TARGET_NOT_FOUND},
    "member": dict.fromkeys(KINDS, TrustErrorCode.REPORT_OWN_COMPANY),
    "owner": dict.fromkeys(KINDS, TrustErrorCode.REPORT_OWN_COMPANY),
    "outsider": dict.fromkeys(KINDS, "ok"),
    # Operators see every conversation, as they do on its page.
    "operator": dict.fromkeys(KINDS, "ok"),
}
CASES = [(who, kind, expected) for who, row in MATRIX.items() for kind, expected in row.items()]


@pytest.mark.parametrize(("who", "kind", "expected"), CASES, ids=lambda v: str(v))
def test_who_may_report_what(cast, reported, who, kind, expected):
    actor = AnonymousUser() if who == "anonymous" else getattr(cast, who)
    target = reported.target(kind)
    if expected == "ok":
        made = report(actor, kind, target, reason="fraud", note="Asked to pay outside the site.")
        assert made.status == ReportStatus.OPEN and made.reporter == actor
        assert made.company == cast.company and made.target_id == target.pk
        assert Report.objects.count() == 1
        return
    with pytest.raises(TrustError) as refused:
        report(actor, kind, target)
    assert refused.value.code == expected
    assert not Report.objects.exists()


def test_what_the_reporter_cannot_see_answers_like_a_missing_object(cast, reported):
    draft = make_product(company=cast.company, status=ProductStatus.DRAFT)
    closed = make_request(actor=cast.owner)
    sourcing_services.request_close(actor=cast.owner, buying_request=closed)
    other_buyer, _company = make_trader(country="DE")
    elsewhere = messaging_services.inquiry_send(
        actor=other_buyer, company=cast.company, message="Hello"
    ).messages.get()
    cases = [
        ("product", draft.pk),
        ("request", closed.pk),
        ("message", elsewhere.pk),  # a conversation of two other companies
        ("product", 10**12),
        ("company", "twelve"),
        ("request", -1),
        ("message", 2**70),
    ]
    for kind, pk in cases:
        with pytest.raises(ReportNotFound) as refused:
            services.report_submit(actor=cast.loner, target=kind, target_id=pk, reason="spam")
        assert refused.value.kind == "not_found" and refused.value.message == "No such object."
    assert not Report.objects.exists()


def test_a_suspended_companys_things_cannot_be_reported_by_the_public(cast, reported):
    reported.company.standing = Standing.SUSPENDED
    reported.company.save()
    for kind in ("product", "company", "request"):
        with pytest.raises(ReportNotFound):
            report(cast.loner, kind, reported.target(kind))


def test_a_second_open_report_of_the_same_thing_is_already_reported(cast, reported):
    first = report(cast.outsider, "product", reported.product)
    with pytest.raises(TrustError) as refused:
        report(cast.outsider, "product", reported.product, reason="spam")
    assert refused.value.code == TrustErrorCode.REPORT_DUPLICATE
    assert refused.value.kind == "conflict"
    assert "already reported" in refused.value.message
    # Somebody else may report it too, and the same person once the first is decided.
    report(cast.loner, "product", reported.product)
    services.report_decide(actor=cast.operator, report=first, action="dismiss")
    again = report(cast.outsider, "product", reported.product)
    assert again.pk != first.pk
    assert Report.objects.filter(reporter=cast.outsider).count() == 2


def test_reports_are_limited_per_person_per_day(cast, reported, settings):
    settings.TRADEPOST_REPORTS_PER_DAY = 3
    products = [make_product() for _ in range(5)]
    for product in products[:3]:
        report(cast.loner, "product", product)
    with pytest.raises(TrustError) as refused:
        report(cast.loner, "product", products[3])
    assert refused.value.code == TrustErrorCode.REPORT_RATE_LIMIT
    assert refused.value.kind == "rate_limited" and "3" in refused.value.message
    assert Report.objects.count() == 3
    # Somebody else is not limited by it; a day later the person may report again.
    report(cast.outsider, "product", products[3])
    with freeze_time(timezone.now() + timedelta(days=1, minutes=1)):
        report(cast.loner, "product", products[4])


def test_reports_are_counted_by_the_one_rate_limiter(cast, reported, settings, rate_limit_store):
    """A person's reports are counts of `accounts.throttle` (in the database or the shared
    cache), over 24 hours: what the service counted, the throttle refuses; a report refused
    (already reported, over the limit) counts nothing."""
    settings.TRADEPOST_REPORTS_PER_DAY = 2
    products = [make_product() for _ in range(3)]
    report(cast.loner, "product", products[0])
    with pytest.raises(TrustError) as duplicate:
        report(cast.loner, "product", products[0])
    assert duplicate.value.code == TrustErrorCode.REPORT_DUPLICATE
    report(cast.loner, "product", products[1])  # the duplicate took nothing from the day's two
    with pytest.raises(TrustError) as refused:
        report(cast.loner, "product", products[2])
    assert refused.value.code == TrustErrorCode.REPORT_RATE_LIMIT
    assert "2 reports in the last 24 hours" in refused.value.message
    assert Report.objects.filter(reporter=cast.loner).count() == 2

    key = services.reporter_throttle_key(cast.loner)
    if rate_limit_store == "database":
        hits = ThrottleHit.objects.filter(action=services.REPORT_THROTTLE_ACTION)
        assert list(hits.values_list("key", flat=True)) == [key, key]
    # The throttle itself holds the count: the day's two are spent.
    spent = throttle(
        action=services.REPORT_THROTTLE_ACTION, limits=[(key, 2)], window=services.REPORT_WINDOW
    )
    assert not spent and spent.retry_after > 3600  # a day's window, not the default hour
    other = services.reporter_throttle_key(cast.outsider)
    assert throttle(
        action=services.REPORT_THROTTLE_ACTION, limits=[(other, 2)], window=services.REPORT_WINDOW
    )


BAD_FIELDS = [
    ({"note": "x" * 1001}, "note"),
    ({"note": "x\ud800y"}, "note"),  # a lone surrogate no database stores
    ({"note": ["a", "b"]}, "note"),
    ({"reason": "ugly"}, "reason"),
    ({"reason": ""}, "reason"),
    ({"reason": 3}, "reason"),
    ({"target": "invoice"}, "target"),
    ({"target": None}, "target"),
]


@pytest.mark.parametrize(("bad", "field"), BAD_FIELDS, ids=lambda v: str(v)[:30])
def test_bad_input_is_refused_naming_the_field(cast, reported, bad, field):
    fields = {"target": "product", "target_id": reported.product.pk, "reason": "spam", **bad}
    with pytest.raises(TrustError) as refused:
        services.report_submit(actor=cast.outsider, **fields)
    assert refused.value.code == TrustErrorCode.INVALID
    assert field in refused.value.field_errors
    assert not Report.objects.exists()


def test_a_note_is_kept_as_written_nul_dropped_markup_included(cast, reported):
    made = report(
        cast.outsider, "product", reported.product, note="  <script>alert(1)</script>\x00 假货  "
    )
    assert made.note == "<script>alert(1)</script> 假货"
    assert made.target_label == "Vacuum flask 500 ml"


def test_a_deactivated_user_reports_nothing(cast, reported):
    user = make_user()
    user.is_active = False
    user.save()
    with pytest.raises(TrustError) as refused:
        report(user, "product", reported.product)
    assert refused.value.code == TrustErrorCode.PERMISSION_DENIED

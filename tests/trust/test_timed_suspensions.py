"""A suspension for a number of days: the operator chooses the length (web, API, service),
the company is told when it ends, its members read the date in their refusals, and the
worker's timer lifts it by itself when the time is up, telling the company as an operator's
lift does. Bad lengths are refused and change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation
from freezegun import freeze_time

from tests.api_client import ApiClient
from tests.factories.catalog import product_fields
from tests.factories.trust import report
from tests.pages import page_url
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError
from tradepost.companies.models import Standing
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.selectors import notification_text
from tradepost.ops.periodic import JOBS
from tradepost.trust import services
from tradepost.trust.errors import TrustError, TrustErrorCode

pytestmark = pytest.mark.django_db


def _suspend(cast, days, **fields):
    return services.moderation_apply(
        actor=cast.operator,
        target="company",
        target_id=cast.company.pk,
        action="suspend",
        reason="spam",
        days=days,
        **fields,
    )


def test_a_suspension_for_seven_days_ends_by_itself(cast, reported, mailoutbox):
    before = timezone.now()
    _suspend(cast, 7)
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.SUSPENDED
    ends = cast.company.standing_until
    assert before + timedelta(days=7) <= ends <= timezone.now() + timedelta(days=7)
    # The company is told when it ends, in the notification and the email.
    notice = Notification.objects.filter(kind=NotificationKind.COMPANY_SUSPENDED).first()
    assert notice.params["date"]
    with translation.override("en"):
        assert " is suspended until " in notification_text(notice)
    # Its members read the date when they are refused.
    draft = catalog_services.product_create(
        actor=cast.member, company=cast.company, **product_fields()
    )
    with pytest.raises(ProductError) as refused:
        catalog_services.product_publish(actor=cast.member, product=draft)
    assert "suspended until" in refused.value.message
    # Not a minute early: the timer leaves it alone a day before.
    with freeze_time(ends - timedelta(days=1)):
        assert services.suspensions_lift_due() == 0
    with freeze_time(ends + timedelta(minutes=1)):
        assert services.suspensions_lift_due() == 1
        assert services.suspensions_lift_due() == 0  # once
    cast.company.refresh_from_db()
    assert (cast.company.standing, cast.company.standing_until) == (Standing.ACTIVE, None)
    told = Notification.objects.filter(kind=NotificationKind.COMPANY_REINSTATED)
    assert sorted(told.values_list("recipient_id", flat=True)) == sorted(
        [cast.owner.pk, cast.admin.pk]
    )
    (entry,) = AuditEntry.objects.filter(action="company.reinstate")
    assert entry.actor_id is None  # the system, not an operator
    catalog_services.product_publish(actor=cast.member, product=draft)  # may act again


def test_the_worker_runs_the_lift_on_its_timer(cast, reported):
    names = {name: job for name, _interval, job in JOBS}
    job = names["lift suspensions whose time is up"]
    _suspend(cast, 1)
    with freeze_time(timezone.now() + timedelta(days=1, minutes=1)):
        job()
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.ACTIVE


def test_an_operator_who_lifts_first_leaves_the_timer_nothing(cast, reported):
    _suspend(cast, 3)
    services.moderation_apply(
        actor=cast.operator, target="company", target_id=cast.company.pk, action="lift"
    )
    cast.company.refresh_from_db()
    assert cast.company.standing_until is None
    with freeze_time(timezone.now() + timedelta(days=4)):
        assert services.suspensions_lift_due() == 0
    assert AuditEntry.objects.filter(action="company.reinstate").count() == 1


def test_a_suspension_without_days_waits_for_an_operator(cast, reported):
    _suspend(cast, None)
    with freeze_time(timezone.now() + timedelta(days=400)):
        assert services.suspensions_lift_due() == 0
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.SUSPENDED
    # Changing an open-ended suspension into one for a time is a change (and is told).
    done = _suspend(cast, 2)
    assert done.changed and done.subject.company.standing_until is not None


@pytest.mark.parametrize(
    ("action", "days"),
    [
        ("suspend", 0),
        ("suspend", 366),
        ("suspend", -3),
        ("suspend", "a week"),
        ("suspend", "7\x00"),
        ("suspend", 2.5),
        ("ban", 7),
        ("warn", 7),
    ],
)
def test_bad_lengths_are_refused_and_change_nothing(cast, reported, action, days):
    with pytest.raises(TrustError) as refused:
        services.moderation_apply(
            actor=cast.operator,
            target="company",
            target_id=cast.company.pk,
            action=action,
            reason="spam",
            days=days,
        )
    assert refused.value.code == TrustErrorCode.INVALID
    assert "days" in refused.value.field_errors
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.ACTIVE
    assert not AuditEntry.objects.exists()


def test_a_report_decided_with_days_suspends_for_that_long(cast, reported):
    made = report(cast.outsider, "product", reported.product, reason="fraud")
    services.report_decide(actor=cast.operator, report=made, action="suspend", days=30)
    cast.company.refresh_from_db()
    remaining = cast.company.standing_until - timezone.now()
    assert timedelta(days=29, hours=23) < remaining <= timedelta(days=30)


def test_the_api_takes_days_and_answers_the_end(cast, reported):
    api = ApiClient(cast.operator, base="/api/v1")
    answer = api.post(
        "/operator/moderation",
        {
            "target": "company",
            "target_id": cast.company.pk,
            "action": "suspend",
            "reason": "spam",
            "days": 14,
        },
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["company"]["standing"] == "suspended"
    assert answer.json()["company"]["suspended_until"]
    refused = api.post(
        "/operator/moderation",
        {"target": "company", "target_id": cast.company.pk, "action": "ban", "days": 14},
    )
    assert refused.status_code == 422
    assert "days" in {error["field"] for error in refused.json()["errors"]}


def test_the_queue_page_suspends_for_days_and_lists_the_end(cast, reported, client):
    client.force_login(cast.operator)
    response = client.post(
        page_url("trust:moderate", "zh-hans"),
        {
            "target": "company",
            "target_id": cast.company.pk,
            "action": "suspend",
            "reason": "spam",
            "days": "10",
        },
        follow=True,
    )
    assert response.status_code == 200
    cast.company.refresh_from_db()
    assert cast.company.standing_until is not None
    html = response.content.decode()
    assert "截止" in html and "暂停天数" in html  # the "Until" column and the field, in Chinese
    refused = client.post(
        page_url("trust:moderate", "zh-hans"),
        {
            "target": "company",
            "target_id": cast.other_company.pk,
            "action": "suspend",
            "reason": "spam",
            "days": "400",
        },
        follow=True,
    )
    assert "1" in refused.content.decode() and "365" in refused.content.decode()
    cast.other_company.refresh_from_db()
    assert cast.other_company.standing == Standing.ACTIVE


def test_members_of_a_suspended_company_see_why_on_every_page(cast, reported, client):
    client.force_login(cast.member)
    dashboard = page_url("accounts:dashboard", "zh-hans")
    assert "standing-banner" not in client.get(dashboard).content.decode()
    _suspend(cast, 7)
    for page in (dashboard, page_url("web:home", "zh-hans")):
        html = client.get(page).content.decode()
        assert "standing-banner" in html and "贵公司已被暂停至" in html, page
    client.force_login(cast.outsider)  # another company's people see no banner
    assert "standing-banner" not in client.get(dashboard).content.decode()

"""The first look at new matching buying requests (ADR 0026): a Gold supplier is told at once,
the others TRADEPOST_FIRST_LOOK_MINUTES later (by the worker's timer, from rows that outlive a
restart), each once; the request is public and open to every supplier's quotation all along;
a Gold supplier sees "First look" on its matches until the others are told."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_trader
from tests.factories.membership import gold, subscribe
from tests.factories.search import index
from tests.factories.sourcing import make_quotation, make_request
from tests.pages import log_in
from tests.races import on_concurrent_writers
from tradepost.accounts.tokens import token_create
from tradepost.companies.models import Standing
from tradepost.notify.models import Notification, NotificationKind
from tradepost.ops import periodic
from tradepost.sourcing import tasks
from tradepost.sourcing.first_look import first_look_ends
from tradepost.sourcing.models import BuyingRequest, MatchAlert, RequestStatus

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_matching_terms")]


def _told(user) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user, kind=NotificationKind.REQUEST_MATCHED))


@pytest.fixture
def world():
    """Two flask makers, one on Gold (with a colleague), one on Free; a Dutch buyer."""
    gold_owner, gold_company = make_trader(legal_name="Gold Flasks")
    subscribe(gold_company, gold(), actor=gold_owner)
    gold_colleague = add_member(gold_company)
    free_owner, free_company = make_trader(legal_name="Free Flasks")
    free_owner.preferred_language = "zh-hant"
    free_owner.save()
    products = [
        make_product(company=gold_company, title="Stainless steel vacuum flask"),
        make_product(company=free_company, title="不锈钢保温杯", original_language="zh-hans"),
    ]
    index(*products)
    buyer, _company = make_trader(country="NL")
    return {
        "gold": gold_owner,
        "gold_colleague": gold_colleague,
        "gold_company": gold_company,
        "free": free_owner,
        "free_company": free_company,
        "buyer": buyer,
    }


def _post(world, django_capture_on_commit_callbacks, **fields) -> BuyingRequest:
    with django_capture_on_commit_callbacks(execute=True):
        return make_request(actor=world["buyer"], title="Vacuum flasks, 500 ml", **fields)


def test_gold_is_told_at_once_and_free_an_hour_later(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    request = _post(world, django_capture_on_commit_callbacks)
    # At once: both Gold members, in the app and by email, marked as a first look.
    for user in (world["gold"], world["gold_colleague"]):
        [notice] = _told(user)
        assert notice.params == {"subject": request.title, "first_look": True}
    assert _told(world["free"]) == []
    assert sorted(m.to[0] for m in mailoutbox) == sorted(
        [world["gold"].email, world["gold_colleague"].email]
    )
    assert "First look" in mailoutbox[0].body
    alerts = {a.company_id: a for a in MatchAlert.objects.filter(request=request)}
    assert alerts[world["gold_company"].pk].first_look
    assert alerts[world["gold_company"].pk].sent_at is not None
    free_alert = alerts[world["free_company"].pk]
    assert not free_alert.first_look and free_alert.sent_at is None
    assert free_alert.due_at == request.created_at + timedelta(minutes=60)

    # The timer, a minute before the hour: nothing; at the hour: the Free supplier.
    mailoutbox.clear()
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(minutes=59)) == 0
    assert _told(world["free"]) == []
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.match_alerts_send_due(now=request.created_at + timedelta(minutes=60)) == 1
    [notice] = _told(world["free"])
    assert notice.params == {"subject": request.title}
    [email] = mailoutbox
    assert email.to == [world["free"].email]
    assert f"/zh-hant/requests/{request.pk}/" in email.body
    assert "搶先看" not in email.body
    # Nobody twice.
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(hours=3)) == 0
    assert len(_told(world["gold"])) == 1 and len(_told(world["free"])) == 1


def test_the_delay_is_a_setting(world, settings, django_capture_on_commit_callbacks):
    settings.TRADEPOST_FIRST_LOOK_MINUTES = 15
    request = _post(world, django_capture_on_commit_callbacks)
    assert len(_told(world["gold"])) == 1
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(minutes=14)) == 0
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(minutes=15)) == 1


def test_no_delay_tells_everyone_at_once_without_a_first_look(
    world, settings, django_capture_on_commit_callbacks
):
    settings.TRADEPOST_FIRST_LOOK_MINUTES = 0
    _post(world, django_capture_on_commit_callbacks)
    assert [n.params.get("first_look") for n in _told(world["gold"])] == [None]
    assert len(_told(world["free"])) == 1


def test_the_first_look_notification_reads_so_in_each_language(
    world, django_capture_on_commit_callbacks
):
    request = _post(world, django_capture_on_commit_callbacks)
    client = log_in(Client(), world["gold"])
    expected = {
        "en": f"First look: a new buying request matches your products: {request.title}",
        "zh-hans": "抢先看：一条新的采购需求与您的产品匹配",
        "zh-hant": "搶先看：一筆新的採購需求與您的產品相符",
    }
    for language, text in expected.items():
        assert text in client.get(f"/{language}/messages/notifications/").content.decode()


def test_the_request_is_public_and_open_to_every_quotation_during_the_first_look(
    world, django_capture_on_commit_callbacks
):
    request = _post(world, django_capture_on_commit_callbacks)
    assert _told(world["free"]) == []
    # On the board and its page, for a visitor and for the supplier not yet told.
    assert request.title in Client().get("/en/requests/").content.decode()
    free = log_in(Client(), world["free"])
    assert free.get(f"/en/requests/{request.pk}/").status_code == 200
    # And the supplier without a first look quotes at once.
    quotation = make_quotation(request, actor=world["free"])
    assert quotation.supplier_id == world["free_company"].pk


def test_a_request_closed_before_the_hour_tells_nobody_later(
    world, django_capture_on_commit_callbacks
):
    request = _post(world, django_capture_on_commit_callbacks)
    BuyingRequest.objects.filter(pk=request.pk).update(status=RequestStatus.CLOSED)
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(hours=2)) == 0
    assert _told(world["free"]) == []
    alert = MatchAlert.objects.get(request=request, company=world["free_company"])
    assert alert.sent_at is not None and alert.recipients == 0


def test_a_suspended_supplier_is_not_told(world, django_capture_on_commit_callbacks):
    request = _post(world, django_capture_on_commit_callbacks)
    world["free_company"].standing = Standing.SUSPENDED
    world["free_company"].save(update_fields=["standing"])
    assert tasks.match_alerts_send_due(now=request.created_at + timedelta(hours=2)) == 0
    assert _told(world["free"]) == []


def test_the_alerts_wait_in_the_database_and_the_workers_timer_sends_them(
    world, django_capture_on_commit_callbacks
):
    """What is due is kept as rows (a restarted worker finds them), and the timer's job is
    registered: run as the worker runs it, it sends what is due."""
    request = _post(world, django_capture_on_commit_callbacks)
    waiting = MatchAlert.objects.filter(sent_at__isnull=True)
    assert list(waiting.values_list("company_id", flat=True)) == [world["free_company"].pk]
    # An hour has passed (the request was posted an hour ago).
    past = timezone.now() - timedelta(minutes=61)
    BuyingRequest.objects.filter(pk=request.pk).update(created_at=past)
    waiting.update(due_at=past + timedelta(minutes=60))
    periodic.run_due_jobs({}, now=10_000.0)
    assert len(_told(world["free"])) == 1
    assert not MatchAlert.objects.filter(sent_at__isnull=True).exists()


def test_two_workers_send_each_alert_once(world, django_capture_on_commit_callbacks):
    request = _post(world, django_capture_on_commit_callbacks)
    later = request.created_at + timedelta(hours=1)
    alert = MatchAlert.objects.get(request=request, company=world["free_company"])
    # Two workers took the same due row; the first to claim it sends it.
    assert tasks._send_alert(alert.pk, now=later) == 1
    assert tasks._send_alert(alert.pk, now=later) == 0
    assert tasks.match_alerts_send_due(now=later) == 0
    # The matching itself runs once too (a retried task).
    assert tasks.request_notify_matched(request_id=request.pk) == 0
    assert MatchAlert.objects.filter(request=request).count() == 2
    assert len(_told(world["free"])) == 1 and len(_told(world["gold"])) == 1


@on_concurrent_writers
def test_concurrent_timers_tell_each_person_once(race):
    buyer, _buyer_company = make_trader(country="NL")
    owners = []
    products = []
    for number in range(6):
        owner, company = make_trader(legal_name=f"Flask maker {number}")
        add_member(company)
        owners.append(owner)
        products.append(make_product(company=company, title="Stainless steel vacuum flask"))
    index(*products)
    request = make_request(actor=buyer, title="Vacuum flasks")  # the task runs at once
    assert MatchAlert.objects.filter(request=request, sent_at__isnull=True).count() == 6
    later = request.created_at + timedelta(hours=1)
    results = race(*[lambda: tasks.match_alerts_send_due(now=later) for _ in range(4)])
    assert sum(results) == 12, results
    assert Notification.objects.filter(kind=NotificationKind.REQUEST_MATCHED).count() == 12
    for owner in owners:
        assert len(_told(owner)) == 1


# --- the "First look" label ---------------------------------------------------------------------


def test_gold_sees_the_first_look_label_on_its_matches_for_the_hour(
    world, django_capture_on_commit_callbacks
):
    request = _post(world, django_capture_on_commit_callbacks)
    gold_page = log_in(Client(), world["gold"]).get("/zh-hans/requests/matching/")
    html = gold_page.content.decode()
    assert request.title in html
    assert 'class="badge first-look"' in html and "抢先看" in html
    free_page = log_in(Client(), world["free"]).get("/en/requests/matching/")
    assert request.title in free_page.content.decode()  # listed for everyone
    assert "first-look" not in free_page.content.decode()

    # After the hour, no label.
    BuyingRequest.objects.filter(pk=request.pk).update(
        created_at=timezone.now() - timedelta(minutes=61)
    )
    later = log_in(Client(), world["gold"]).get("/en/requests/matching/").content.decode()
    assert request.title in later and 'class="badge first-look"' not in later


def test_the_api_marks_the_first_look(world, django_capture_on_commit_callbacks):
    request = _post(world, django_capture_on_commit_callbacks)

    def matches(user):
        _token, secret = token_create(user=user, name="tests")
        response = Client().get(
            "/api/v1/requests/matching", headers={"Authorization": f"Bearer {secret}"}
        )
        assert response.status_code == 200
        return {item["request"]["id"]: item for item in response.json()["items"]}

    mine = matches(world["gold"])[request.pk]
    assert mine["first_look"] is True
    until = first_look_ends(BuyingRequest.objects.get(pk=request.pk))
    sent = datetime.fromisoformat(mine["first_look_until"].replace("Z", "+00:00"))
    assert abs(sent - until) < timedelta(milliseconds=1)
    theirs = matches(world["free"])[request.pk]
    assert theirs["first_look"] is False and theirs["first_look_until"] is None


def test_operators_read_the_alerts_in_the_admin(world, django_capture_on_commit_callbacks):
    request = _post(world, django_capture_on_commit_callbacks)
    client = Client()
    client.force_login(make_operator())
    page = client.get("/admin/sourcing/matchalert/")
    assert page.status_code == 200 and request.title in page.content.decode()
    alert = MatchAlert.objects.filter(request=request).first()
    assert client.get(f"/admin/sourcing/matchalert/{alert.pk}/change/").status_code == 200

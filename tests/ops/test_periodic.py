from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories.sourcing import make_request
from tradepost.ops import periodic


@pytest.mark.django_db
def test_due_jobs_expire_buying_requests_past_their_deadline(monkeypatch):
    calls = []
    monkeypatch.setattr("tradepost.ops.periodic.request_expire_due", lambda: calls.append(1) or 0)
    last_run: dict[str, float] = {}
    periodic.run_due_jobs(last_run, now=1000.0)
    periodic.run_due_jobs(last_run, now=1010.0)  # within the interval: not again
    periodic.run_due_jobs(last_run, now=1061.0)
    assert len(calls) == 2


def test_a_failing_job_does_not_stop_the_others(monkeypatch):
    ran = []

    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(
        periodic, "JOBS", [("broken", 1.0, broken), ("fine", 1.0, lambda: ran.append(1))]
    )
    periodic.run_due_jobs({}, now=10.0)
    assert ran == [1]


@pytest.mark.django_db
def test_expiry_job_marks_overdue_open_requests_expired():
    request = make_request()
    type(request).objects.filter(pk=request.pk).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    periodic.run_due_jobs({}, now=10_000.0)
    request.refresh_from_db()
    assert request.status == "expired"


def test_the_response_rate_refresh_looks_back_a_day_then_from_its_last_look(monkeypatch):
    seen = []
    monkeypatch.setattr(
        "tradepost.ops.periodic.refresh_indexed_rates", lambda *, since: seen.append(since) or 0
    )
    job = periodic._IndexedRates()
    before = timezone.now()
    job()
    job()
    first, second = seen
    assert before - timedelta(days=1) <= first <= timezone.now() - timedelta(days=1)
    # The second look overlaps the first by a minute (answers committed meanwhile).
    assert (
        before - timedelta(minutes=1, seconds=5) < second <= timezone.now() - timedelta(minutes=1)
    )
    assert "refresh the response rates in the search index" in {name for name, *_ in periodic.JOBS}

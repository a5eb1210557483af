"""`core.queueing.enqueue_on_commit`: work reaches the queue only once its transaction commits,
never after a rollback, and deferred where the queue can wait."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone
from django_tasks import default_task_backend

from tradepost.core.queueing import enqueue_on_commit
from tradepost.webhooks.tasks import deliver_webhook

pytestmark = pytest.mark.django_db(transaction=True)

DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@override_settings(TASKS=DUMMY)
def test_queued_at_the_commit_and_never_after_a_rollback():
    backend = default_task_backend
    backend.clear()
    with transaction.atomic():
        enqueue_on_commit(deliver_webhook, delivery_id=1)
        assert backend.results == []  # not before the commit
    assert [result.kwargs for result in backend.results] == [{"delivery_id": 1}]
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_on_commit(deliver_webhook, delivery_id=2)
        raise RuntimeError("the write failed")
    assert [result.kwargs for result in backend.results] == [{"delivery_id": 1}]


@override_settings(TASKS=DUMMY)
def test_outside_a_transaction_it_is_queued_at_once_and_deferred_where_the_queue_can():
    backend = default_task_backend
    backend.clear()
    due = timezone.now() + timedelta(minutes=4)
    enqueue_on_commit(deliver_webhook, run_after=due, delivery_id=3)
    (result,) = backend.results
    assert (result.kwargs, result.task.run_after) == ({"delivery_id": 3}, due)

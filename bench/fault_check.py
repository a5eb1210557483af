"""The fault drill's checks, run in a child process with the drill's settings (`bench/
fault_drill.py`): were the acknowledged writes kept, did the index and the task queue
converge, was any email or notification sent twice. Prints one JSON object."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Q

from tradepost.catalog.models import Product, ProductStatus
from tradepost.messaging.models import Message
from tradepost.notify.models import Notification
from tradepost.search.index import forget_indexes, product_key, searcher, term_query
from tradepost.search.indexer import has_pending


def _unfinished_tasks() -> int:
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(Q(status="READY") | Q(status="RUNNING")).count()


def _wait(condition, seconds: float) -> float | None:
    """Seconds until `condition()` held, or None when it did not within `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if condition():
            return round(time.monotonic() - started, 1)
        time.sleep(1)
    return None


def _in_index(product_id: int) -> bool:
    hits = searcher().search(term_query("key", product_key(product_id)), 1)
    return bool(hits.count)


def check(acked: dict[str, Any], wait_seconds: float = 180) -> dict[str, Any]:
    report: dict[str, Any] = {}
    report["outbox_converged_after_s"] = _wait(lambda: not has_pending(), wait_seconds)
    uses_database_queue = settings.TASKS["default"]["BACKEND"].startswith("django_tasks_db")
    if uses_database_queue:
        report["tasks_finished_after_s"] = _wait(lambda: _unfinished_tasks() == 0, 60)
        report["tasks_unfinished"] = _unfinished_tasks()

    created = {int(pk): title for pk, title in acked["created"]}
    found = dict(Product.objects.filter(pk__in=created).values_list("pk", "title"))
    report["products_acknowledged"] = len(created)
    report["products_lost"] = sorted(pk for pk in created if found.get(pk) != created[pk])
    published = {int(pk) for pk in acked["published"]}
    still = set(
        Product.objects.filter(pk__in=published, status=ProductStatus.PUBLISHED).values_list(
            "pk", flat=True
        )
    )
    report["publications_acknowledged"] = len(published)
    report["publications_lost"] = sorted(published - still)
    forget_indexes()
    report["published_missing_from_index"] = sorted(pk for pk in published if not _in_index(pk))

    # Each marker is written followed by a colon ("drill…i1: please quote."), which is how it
    # is looked for: "…i1" alone is also the start of "…i10".
    tokens = {f"{token}:": int(conversation) for token, conversation in acked["inquiries"]}
    kept = set()
    for token in tokens:
        if Message.objects.filter(body__contains=token).exists():
            kept.add(token)
    report["inquiries_acknowledged"] = len(tokens)
    report["inquiries_lost"] = sorted(set(tokens) - kept)

    sent: Counter[str] = Counter()
    folder = Path(settings.EMAIL_FILE_PATH)
    for path in folder.glob("*.log") if folder.exists() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        for token in tokens:
            if token in text:
                sent[token] += text.count(token)
    # Each inquiry email carries the message twice: in its text and its HTML part.
    per_email = 2
    report["inquiry_emails_expected"] = len(tokens)
    report["inquiry_emails_sent_once"] = sum(1 for t in tokens if sent[t] == per_email)
    report["inquiry_emails_missing"] = sorted(t for t in tokens if sent[t] == 0)
    report["inquiry_emails_sent_twice_or_more"] = sorted(t for t in tokens if sent[t] > per_email)

    links = [f"/en/messages/{conversation}/" for conversation in tokens.values()]
    per_link = Counter(
        Notification.objects.filter(link__in=links, kind="new_inquiry").values_list(
            "link", flat=True
        )
    )
    report["inquiry_notifications_missing"] = sum(1 for link in links if per_link[link] == 0)
    report["inquiry_notifications_duplicated"] = sum(1 for link in links if per_link[link] > 1)
    return report


if __name__ == "__main__":
    acked_file = Path(sys.argv[1])
    print(json.dumps(check(json.loads(acked_file.read_text()))))

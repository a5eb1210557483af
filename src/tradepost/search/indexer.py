"""The indexer: applies the outbox to the tantivy index, in order and idempotently.

A batch of outbox rows is applied by re-reading the current database state of every object
they name and replacing (or removing) its document; then tantivy commits, and only then is
the new position written to the state file. A crash between the commit and the state write
replays the batch on restart, which changes nothing: the documents are rebuilt from the same
database state. Ordering therefore only decides *when* a change is seen, never the result.

Outbox ids are assigned when a row is inserted, not when its transaction commits, so on
PostgreSQL a row with a smaller id can become visible after a larger one. The indexer records
the ids it has passed without seeing a row ("holes") and looks for them again until they
expire, so a late commit is still applied.

`run_indexer_loop` is what `tradepost worker` runs in a thread: poll every half second, apply
what is pending, prune applied rows after a retention period, stop when asked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, connections
from django.db.models import Max, Min
from django.utils import timezone

from tradepost.core.forking import forked_pool
from tradepost.money.rates import forget_rates
from tradepost.search import documents
from tradepost.search.documents import CategoryTree
from tradepost.search.index import (
    Fields,
    IndexBusy,
    IndexState,
    IndexWriter,
    Shared,
    build_document,
    company_document,
    company_key,
    heartbeat_age,
    index_writer,
    product_document,
    product_fields,
    product_key,
    read_state,
    request_document,
    request_key,
    write_state,
)
from tradepost.search.models import IndexOutbox, OutboxKind

logger = logging.getLogger(__name__)

#: Rows applied per commit.
BATCH_SIZE = 500
#: Ids tracked as holes below a newly applied id: rows of transactions still in flight
#: got their ids just before it. A wider gap (the position far behind the sequence, as
#: after a rebuild with an empty outbox, or a sequence jump) has only its top part tracked.
MAX_TRACKED_GAP = 1000
#: Holes are looked up with at most this many ids per query.
MAX_HOLES_PER_QUERY = 500


def _hole_seconds() -> float:
    return float(settings.TRADEPOST_SEARCH_OUTBOX_HOLE_SECONDS)


def _retention() -> timedelta:
    return timedelta(hours=settings.TRADEPOST_SEARCH_OUTBOX_RETENTION_HOURS)


@dataclass
class ApplyReport:
    rows: int = 0
    documents: int = 0
    rebuilt: bool = False


#: Test hook: called after the tantivy commit and before the state is written.
AfterCommitHook = Callable[[], None]


def _pending_rows(state: IndexState, limit: int) -> list[tuple[int, str, int]]:
    """Rows after the position and rows that filled a hole, in id order, at most `limit`.
    Every hole is looked up (in chunks), however many there are."""
    rows = IndexOutbox.objects.order_by("id").values_list("id", "kind", "object_id")
    pending = list(rows.filter(id__gt=state.position)[:limit])
    holes = sorted(state.holes)
    for start in range(0, len(holes), MAX_HOLES_PER_QUERY):
        pending.extend(rows.filter(id__in=holes[start : start + MAX_HOLES_PER_QUERY]))
    pending.sort()
    return pending[:limit]


def has_pending(state: IndexState | None = None) -> bool:
    """Whether there is anything to apply (cheap: one indexed query, no writer)."""
    state = state if state is not None else read_state()
    if state is None:
        return True
    return bool(_pending_rows(state, 1))


def apply_changes(
    writer: IndexWriter,
    *,
    product_ids: Iterable[int] = (),
    company_ids: Iterable[int] = (),
    category_ids: Iterable[int] = (),
    request_ids: Iterable[int] = (),
) -> int:
    """Replace the documents of these objects with their current database state (or remove
    them). Nothing is committed. Returns the number of documents written."""
    product_set = set(product_ids)
    company_set = set(company_ids)
    category_set = set(category_ids)
    if company_set:
        # The company's name, country and badge are in its products' documents, and a
        # deleted company's products are gone from the database without rows of their own.
        for company_id in company_set:
            writer.delete_term("company_id", company_id)
        product_set.update(documents.published_product_ids_of_companies(company_set))
    if category_set:
        product_set.update(documents.published_product_ids_in_categories(category_set))

    written = 0
    shared = Shared(CategoryTree.load()) if product_set else None
    product_list = sorted(product_set)
    for start in range(0, len(product_list), 2000):
        chunk = product_list[start : start + 2000]
        records = documents.load_published_products(chunk)
        for product_id in chunk:
            writer.delete_term("key", product_key(product_id))
            record = records.get(product_id)
            if record is not None and shared is not None:
                writer.add(product_document(record, shared))
                written += 1
    if company_set:
        companies = documents.load_companies(company_set)
        for company_id in sorted(company_set):
            writer.delete_term("key", company_key(company_id))
            company = companies.get(company_id)
            if company is not None:
                writer.add(company_document(company))
                written += 1
    request_set = set(request_ids)
    if company_set:  # a buyer's standing decides whether its requests are searchable
        request_set.update(documents.open_request_ids_of_buyers(company_set))
    if category_set:
        request_set.update(documents.open_request_ids_in_categories(category_set))
    request_list = sorted(request_set)
    if request_list:
        # Closed, awarded, expired and deleted requests are absent here: removed.
        request_shared = shared or Shared(CategoryTree.load())
        requests = documents.load_open_requests(request_list)
        for request_id in request_list:
            writer.delete_term("key", request_key(request_id))
            request = requests.get(request_id)
            if request is not None:
                writer.add(request_document(request, request_shared))
                written += 1
    return written


def _advance(state: IndexState, applied_ids: list[int], now: float) -> IndexState:
    """The state after applying `applied_ids` (sorted): the position moves to the largest
    id, ids skipped on the way become holes, found holes are closed, old holes expire."""
    holes = {k: v for k, v in state.holes.items() if now - v < _hole_seconds()}
    position = state.position
    for row_id in applied_ids:
        holes.pop(row_id, None)
        if row_id <= position:
            continue
        low = max(position + 1, row_id - MAX_TRACKED_GAP)
        for missing in range(low, row_id):
            holes.setdefault(missing, now)
        if low > position + 1:
            logger.info(
                "search outbox: ids %d..%d not tracked (the %d below %d are)",
                position + 1,
                low - 1,
                MAX_TRACKED_GAP,
                row_id,
            )
        position = row_id
    return IndexState(position=position, holes=holes, applied_at=now, built_at=state.built_at)


_pool_shared: Shared | None = None


def _pool_start() -> None:
    """In each analysis process: its own database connection and category cache."""
    global _pool_shared
    connections.close_all()
    documents.forget_loaded_companies()
    _pool_shared = Shared(CategoryTree.load())


def _pool_product_fields(bounds: tuple[int, int]) -> list[Fields]:
    assert _pool_shared is not None
    records = documents.load_published_product_range(*bounds)
    return [product_fields(record, _pool_shared) for record in records]


def _product_field_chunks(pool: Any | None) -> Iterator[list[Fields]]:
    if pool is None:
        shared = Shared(CategoryTree.load())
        for chunk in documents.iter_published_products():
            yield [product_fields(record, shared) for record in chunk]
        return
    ranges = documents.published_product_id_ranges()
    yield from pool.imap(_pool_product_fields, ranges)


def rebuild(
    writer: IndexWriter,
    *,
    on_progress: Callable[[int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    pool: Any | None = None,
) -> IndexState | None:
    """Replace the whole index with the database's published products and companies.

    The outbox position is taken *before* reading, so any change made during the rebuild is
    applied again afterwards. With a process `pool`, text analysis runs in its processes.
    Returns the new state (already written), or None when stopped early (nothing
    committed).
    """
    forget_rates()  # the rates as they are now, for every document of the rebuild
    last_id = IndexOutbox.objects.aggregate(last=Max("id"))["last"] or 0
    # Rows just below the position may belong to transactions still open (PostgreSQL).
    recent = set(
        IndexOutbox.objects.filter(id__gt=max(0, last_id - MAX_TRACKED_GAP)).values_list(
            "id", flat=True
        )
    )
    now = time.time()
    holes = {
        row_id: now
        for row_id in range(max(0, last_id - MAX_TRACKED_GAP) + 1, last_id + 1)
        if row_id not in recent
    }
    writer.delete_all()
    for chunk in _product_field_chunks(pool):
        if should_stop is not None and should_stop():
            writer.rollback()
            return None
        for fields in chunk:
            writer.add(build_document(fields))
        if on_progress is not None:
            on_progress(len(chunk))
    for companies in documents.iter_companies():
        for company in companies:
            writer.add(company_document(company))
    request_shared = Shared(CategoryTree.load())
    for requests in documents.iter_open_requests():
        for request in requests:
            writer.add(request_document(request, request_shared))
    writer.commit()
    state = IndexState(position=last_id, holes=holes, applied_at=now, built_at=now)
    write_state(state)
    return state


def _needs_rebuild(state: IndexState | None) -> bool:
    """No index yet, or rows this index never applied have been pruned meanwhile (a replica
    that was offline longer than the retention period)."""
    if state is None:
        return True
    if time.time() - state.applied_at <= _retention().total_seconds():
        return False
    first = IndexOutbox.objects.aggregate(first=Min("id"))["first"]
    return bool(first is not None and first > state.position + 1)


def apply_outbox(
    *,
    batch_size: int = BATCH_SIZE,
    max_batches: int | None = None,
    after_commit: AfterCommitHook | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ApplyReport:
    """Apply pending outbox rows (building the index first when it has never been built).

    Raises IndexBusy when another indexer holds the writer.
    """
    report = ApplyReport()
    forget_rates()  # a rate changed since the last batch re-queued its listings
    state = read_state()
    if not _needs_rebuild(state) and not has_pending(state):
        return report
    with index_writer() as writer:
        # Read again under the writer lock: another indexer may have moved on.
        state = read_state()
        if _needs_rebuild(state):
            state = rebuild(writer, should_stop=should_stop)
            report.rebuilt = True
            if state is None:
                return report
        assert state is not None
        batches = 0
        while max_batches is None or batches < max_batches:
            if should_stop is not None and should_stop():
                break
            rows = _pending_rows(state, batch_size)
            if not rows:
                break
            ids: dict[str, set[int]] = {kind: set() for kind in OutboxKind.values}
            for _row_id, kind, object_id in rows:
                ids.setdefault(kind, set()).add(object_id)
            report.documents += apply_changes(
                writer,
                product_ids=ids[OutboxKind.PRODUCT],
                company_ids=ids[OutboxKind.COMPANY],
                category_ids=ids[OutboxKind.CATEGORY],
                request_ids=ids[OutboxKind.REQUEST],
            )
            writer.commit()
            if after_commit is not None:
                after_commit()
            state = _advance(state, [row[0] for row in rows], time.time())
            write_state(state)
            report.rows += len(rows)
            batches += 1
    return report


def prune_outbox() -> int:
    """Delete rows this index has applied that are older than the retention period."""
    state = read_state()
    if state is None:
        return 0
    cutoff = timezone.now() - _retention()
    deleted, _ = IndexOutbox.objects.filter(id__lte=state.position, created_at__lt=cutoff).delete()
    return deleted


def rebuild_now(
    *,
    on_progress: Callable[[int], None] | None = None,
    heap_bytes: int = 512_000_000,
    threads: int = 0,
    workers: int = 1,
) -> IndexState | None:
    """Rebuild the whole index (what `tradepost reindex` does), analysing text in `workers`
    processes. Raises IndexBusy."""
    # Inside a transaction (a caller's atomic block, or a test) the analysis processes could
    # not see its uncommitted rows, and closing the connection to fork would end it: analyse
    # in this process instead.
    in_transaction = any(conn.in_atomic_block for conn in connections.all(initialized_only=True))
    if workers <= 1 or in_transaction:
        with index_writer(heap_bytes=heap_bytes, threads=threads) as writer:
            return rebuild(writer, on_progress=on_progress)
    # Fork the analysis processes before the index writer starts its threads, and without
    # an open database connection to share.
    connections.close_all()
    with (
        forked_pool(workers, initializer=_pool_start) as pool,
        index_writer(heap_bytes=heap_bytes, threads=threads) as writer,
    ):
        return rebuild(writer, on_progress=on_progress, pool=pool)


def indexer_status() -> dict[str, float | int | None]:
    """What /healthz and /metrics report of this machine's search index: changes written
    but not yet applied (`pending`), seconds since the index last applied or was rebuilt,
    and seconds since the worker last showed it was alive (None: never)."""
    state = read_state()
    position = state.position if state is not None else 0
    pending = IndexOutbox.objects.filter(pk__gt=position).count()
    applied = max(state.applied_at, state.built_at) if state is not None else 0.0
    now = time.time()
    return {
        "pending": pending,
        "applied_seconds_ago": round(now - applied, 1) if applied else None,
        "worker_seconds_ago": None if (age := heartbeat_age()) is None else round(age, 1),
    }


def run_indexer_loop(
    stop: threading.Event,
    *,
    interval: float = 0.5,
    prune_every: float = 300.0,
    after_apply: Callable[[], Any] | None = None,
) -> None:
    """Apply the outbox until `stop` is set (the worker runs this in a thread), calling
    `after_apply` after each pass (the trade alerts' percolator: it reads what the index
    has applied; a failure there is logged and never stops the indexer)."""
    last_prune = 0.0
    failures = 0
    try:
        while not stop.is_set():
            close_old_connections()
            try:
                report = apply_outbox(should_stop=stop.is_set)
                failures = 0
                if time.monotonic() - last_prune > prune_every:
                    prune_outbox()
                    last_prune = time.monotonic()
            except IndexBusy:
                report = ApplyReport()
            except Exception:
                failures += 1
                logger.exception("search indexer failed; retrying")
                stop.wait(min(30.0, interval * 2**failures))
                continue
            if after_apply is not None:
                try:
                    after_apply()
                except Exception:
                    logger.exception("after the indexer's pass: failed; tried again next pass")
            if report.rows == 0 and not report.rebuilt:
                stop.wait(interval)
    finally:
        connection.close()

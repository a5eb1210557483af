"""The outbox and the indexer: order, idempotence, removal, crashes, holes, pruning."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from tests.factories.catalog import make_category, make_product
from tests.factories.companies import make_company
from tests.factories.search import index, record
from tradepost.catalog.models import ProductStatus
from tradepost.search import documents, indexer
from tradepost.search.check import check_index, indexed_versions
from tradepost.search.index import KIND_PRODUCT, read_state, searcher, write_state
from tradepost.search.models import IndexOutbox
from tradepost.search.outbox import record_change, record_changes
from tradepost.search.selectors import ProductFilters, search_products

pytestmark = pytest.mark.django_db


def found(query: str, **filters) -> list[int]:
    result = search_products(
        query=query, language="en", filters=ProductFilters(**filters), with_facets=False
    )
    return [hit.product.id for hit in result.hits]


def product_doc_count() -> int:
    return len(indexed_versions(KIND_PRODUCT))


def test_record_changes_writes_the_rows_record_change_writes_in_their_order():
    IndexOutbox.objects.all().delete()
    before = timezone.now()
    with transaction.atomic():
        record_change(kind="product", object_id=7)
        record_changes(kind="company", object_ids=[30, 10, 30, 20])
        record_changes(kind="product", object_ids=[])
    rows = list(IndexOutbox.objects.order_by("id").values_list("kind", "object_id", "created_at"))
    assert [row[:2] for row in rows] == [
        ("product", 7),
        ("company", 30),
        ("company", 10),
        ("company", 20),
    ]
    assert all(before <= row[2] <= timezone.now() for row in rows)
    with pytest.raises(ValueError), transaction.atomic():
        record_changes(kind="order", object_ids=[1])


def test_record_change_rejects_an_unknown_kind():
    with pytest.raises(ValueError), transaction.atomic():
        record_change(kind="order", object_id=1)


@pytest.mark.django_db(transaction=True)
def test_record_change_must_run_inside_the_writers_transaction():
    with pytest.raises(RuntimeError):
        record_change(kind="product", object_id=1)
    assert not IndexOutbox.objects.exists()
    with transaction.atomic():
        record_change(kind="product", object_id=1)
    assert IndexOutbox.objects.count() == 1


def test_a_rolled_back_write_leaves_no_outbox_row():
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        record_change(kind="product", object_id=1)
        1 / 0
    assert not IndexOutbox.objects.exists()


def test_first_run_builds_the_index_from_the_database():
    kept = make_product(title="Bamboo cutting board")
    make_product(title="Bamboo draft board", status=ProductStatus.DRAFT)
    report = indexer.apply_outbox()
    assert report.rebuilt
    assert found("bamboo") == [kept.id]
    assert check_index().ok


def test_rows_are_applied_in_order_in_batches_and_the_position_advances():
    indexer.apply_outbox()  # build the (empty) index
    products = [make_product(title=f"Ceramic mug model {n}") for n in range(5)]
    record(*products)
    last_id = IndexOutbox.objects.order_by("-id").values_list("id", flat=True)[0]

    report = indexer.apply_outbox(batch_size=2, max_batches=1)
    assert report.rows == 2
    state = read_state()
    assert state is not None
    first_two = list(IndexOutbox.objects.order_by("id").values_list("id", flat=True)[:2])
    assert state.position == first_two[-1]
    assert sorted(found("ceramic mug")) == sorted(p.id for p in products[:2])

    report = indexer.apply_outbox(batch_size=2)
    assert report.rows == 3
    assert read_state().position == last_id
    assert sorted(found("ceramic mug")) == sorted(p.id for p in products)
    assert not indexer.has_pending()


def test_replaying_rows_changes_nothing():
    products = [make_product(title=f"Silicone baking mat {n}") for n in range(3)]
    index(*products)
    assert product_doc_count() == 3
    # Forget the position: every row is applied a second (and third) time.
    write_state(indexer.IndexState(position=0, applied_at=time.time()))
    record(*products)
    indexer.apply_outbox()
    indexer.apply_outbox()
    assert product_doc_count() == 3
    assert searcher().num_docs == 3 + 3  # three products and their three companies
    assert check_index().ok


def test_unpublishing_and_deleting_remove_the_document():
    hidden = make_product(title="Wool felt slippers")
    deleted = make_product(title="Wool felt slippers deluxe")
    index(hidden, deleted)
    assert sorted(found("wool slippers")) == sorted([hidden.id, deleted.id])

    hidden.status = ProductStatus.HIDDEN
    hidden.save()
    deleted_id = deleted.id
    deleted.delete()
    index(hidden)
    record_id = IndexOutbox.objects.count()
    assert record_id
    with transaction.atomic():
        record_change(kind="product", object_id=deleted_id)
    indexer.apply_outbox()
    assert found("wool slippers") == []
    assert product_doc_count() == 0


def test_a_changed_title_replaces_the_old_document():
    product = make_product(title="Cotton tote bag")
    index(product)
    product.title = "Canvas tote bag"
    product.save()
    index(product)
    assert found("cotton") == []
    assert found("canvas") == [product.id]
    assert product_doc_count() == 1


def test_a_company_change_reaches_its_products_and_a_deleted_company_takes_them_out():
    company = make_company(country="CN")
    products = [make_product(company=company, title=f"Garden hose reel {n}") for n in range(2)]
    index(*products, company)
    assert len(found("hose reel", countries=("CN",))) == 2

    company.country = "VN"
    company.save()
    index(company)
    assert found("hose reel", countries=("CN",)) == []
    assert len(found("hose reel", countries=("VN",))) == 2

    company_id = company.id
    company.delete()  # cascades to its products, which write no rows of their own
    with transaction.atomic():
        record_change(kind="company", object_id=company_id)
    indexer.apply_outbox()
    assert found("hose reel") == []
    assert searcher().num_docs == 0


def test_a_category_rename_reaches_the_products_filed_under_it():
    top = make_category(name_en="Outdoor gear")
    leaf = make_category(parent=top, name_en="Camping lanterns")
    product = make_product(title="Rechargeable lamp", category=leaf)
    index(product)
    assert found("lanterns") == [product.id]
    top.name_en = "Recreation supplies"
    top.save()
    index(top)
    assert found("recreation") == [product.id]


def test_a_crash_after_the_commit_and_before_the_position_is_saved_converges():
    index()  # build
    products = [make_product(title=f"Nylon tent stake {n}") for n in range(4)]
    record(*products, *(p.company for p in products))
    before = read_state()

    def crash():
        raise KeyboardInterrupt("killed between the tantivy commit and the state write")

    with pytest.raises(KeyboardInterrupt):
        indexer.apply_outbox(after_commit=crash)
    assert read_state() == before  # the position did not move...
    assert product_doc_count() == 4  # ...but the documents were committed

    # More changes arrive while the indexer is down; then it restarts and replays.
    products[0].title = "Steel tent stake"
    products[0].save()
    products[1].status = ProductStatus.HIDDEN
    products[1].save()
    record(products[0], products[1])
    indexer.apply_outbox()
    assert product_doc_count() == 3
    assert found("steel stake") == [products[0].id]
    report = check_index()
    assert report.ok, report
    assert not indexer.has_pending()


def test_a_crash_in_the_middle_of_a_batch_rolls_back_and_converges(monkeypatch):
    index()
    products = [make_product(title=f"Ceramic vase {n}") for n in range(3)]
    record(*products, *(p.company for p in products))
    real_load = documents.load_published_products

    def failing_load(ids):
        raise RuntimeError("database went away mid-batch")

    monkeypatch.setattr(documents, "load_published_products", failing_load)
    with pytest.raises(RuntimeError):
        indexer.apply_outbox()
    assert product_doc_count() == 0
    monkeypatch.setattr(documents, "load_published_products", real_load)
    indexer.apply_outbox()
    assert product_doc_count() == 3
    assert check_index().ok


def test_a_row_that_commits_late_below_the_position_is_still_applied():
    """PostgreSQL hands out ids at insert, so a smaller id can commit after a larger one."""
    index()
    # Bring the position up to the outbox's current id (on PostgreSQL the id sequence keeps
    # counting across the tests' rolled-back transactions), so the gap below is small.
    warm_up = make_product(title="Walnut bowl")
    record(warm_up)
    indexer.apply_outbox()
    early, late = make_product(title="Copper kettle"), make_product(title="Copper pot")
    record(early)
    record(late)
    early_row, late_row = IndexOutbox.objects.filter(id__gt=read_state().position).order_by("id")
    # Pretend the earlier row's transaction is still open: it is not visible yet.
    early_row_id = early_row.id
    early_row.delete()
    indexer.apply_outbox()
    state = read_state()
    assert state.position == late_row.id
    assert early_row_id in state.holes
    assert found("copper") == [late.id]

    # The transaction commits now, with its original id.
    with transaction.atomic():
        IndexOutbox.objects.create(id=early_row_id, kind="product", object_id=early.id)
    assert indexer.has_pending()
    indexer.apply_outbox()
    assert sorted(found("copper")) == sorted([early.id, late.id])
    assert early_row_id not in read_state().holes


def test_holes_expire(settings):
    settings.TRADEPOST_SEARCH_OUTBOX_HOLE_SECONDS = 0
    state = indexer._advance(indexer.IndexState(position=1), [5], time.time())
    assert state.position == 5
    assert indexer._advance(state, [6], time.time() + 1).holes == {}


def test_applied_rows_are_pruned_after_the_retention_period(settings):
    settings.TRADEPOST_SEARCH_OUTBOX_RETENTION_HOURS = 1
    product = make_product()
    index(product)
    record(product)
    indexer.apply_outbox()
    IndexOutbox.objects.update(created_at=timezone.now() - timedelta(hours=2))
    record(product)  # applied later: kept even though old
    pending = IndexOutbox.objects.order_by("-id").first()
    IndexOutbox.objects.filter(id=pending.id).update(created_at=timezone.now() - timedelta(hours=2))
    assert indexer.prune_outbox() == 2
    assert list(IndexOutbox.objects.values_list("id", flat=True)) == [pending.id]


def test_a_replica_that_missed_pruned_rows_rebuilds(settings):
    settings.TRADEPOST_SEARCH_OUTBOX_RETENTION_HOURS = 1
    product = make_product(title="Jute doormat")
    index()
    stale = read_state()
    write_state(indexer.IndexState(position=stale.position, applied_at=time.time() - 7200))
    # Rows beyond this replica's position were pruned by another machine's worker.
    record(product)
    IndexOutbox.objects.all().delete()
    with transaction.atomic():
        record_changes(kind="product", object_ids=[product.id, product.id])
    assert IndexOutbox.objects.count() == 1  # de-duplicated
    report = indexer.apply_outbox()
    assert report.rebuilt
    assert found("doormat") == [product.id]


@pytest.mark.django_db(transaction=True)
def test_the_worker_loop_makes_a_new_product_searchable_within_two_seconds():
    indexer.apply_outbox()
    # The product is committed before the loop starts, and the loop's outbox pruning is
    # pushed out of the test's window: threads sharing the in-memory SQLite test database
    # would otherwise take table locks from each other.
    product = make_product(title="Handmade rattan basket")
    record(product)
    stop = threading.Event()
    thread = threading.Thread(
        target=indexer.run_indexer_loop,
        args=(stop,),
        kwargs={"interval": 0.1, "prune_every": 1e12},
        daemon=True,
    )
    thread.start()
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and not found("rattan basket"):
            time.sleep(0.05)
        assert found("rattan basket") == [product.id]
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_far_jump_still_tracks_the_ids_just_below_it():
    # After a rebuild with an empty outbox the position is 0 while the sequence is far
    # ahead: a row of a transaction still open sits just below the first applied id.
    now = time.time()
    state = indexer._advance(indexer.IndexState(position=0), [50_000], now)
    assert state.position == 50_000
    assert 49_999 in state.holes and 50_000 - indexer.MAX_TRACKED_GAP in state.holes
    assert 50_000 - indexer.MAX_TRACKED_GAP - 1 not in state.holes
    assert len(state.holes) == indexer.MAX_TRACKED_GAP
    # A near gap is tracked whole, and applying a hole closes it.
    state = indexer._advance(state, [49_999, 50_003], now)
    assert 49_999 not in state.holes and {50_001, 50_002} <= set(state.holes)


def test_every_hole_is_looked_up_however_many_there_are():
    product = make_product(title="Brass hinge")
    with transaction.atomic():
        row = IndexOutbox.objects.create(kind="product", object_id=product.id)
    # The row's id is the newest of more holes than one query looks up.
    holes = {row.id - n: time.time() for n in range(indexer.MAX_HOLES_PER_QUERY * 2 + 1)}
    state = indexer.IndexState(position=row.id + 5, holes=holes)
    assert [r[0] for r in indexer._pending_rows(state, 10)] == [row.id]
    assert indexer.has_pending(state)

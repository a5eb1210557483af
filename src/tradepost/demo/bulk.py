"""Appends a large generated catalogue to the database (`tradepost generate`).

The companies and products are planned by the demo's planner (same vocabulary, languages,
countries and terms), but products are planned and written in chunks, so a million of them
never sit in memory at once, and they are written with raw multi-row inserts instead of model
instances:

- products get their ids from this module (the largest id + 1 onwards), so translations,
  pictures and outbox rows are written without reading anything back; on PostgreSQL the id
  sequences are moved past them at the end. Nothing else may write products meanwhile (this
  is a bulk-load tool for benchmarks and trials, not something to run beside live traffic);
- descriptions are built from escaped text by the planner, so they are not sanitised again
  (a test checks that sanitising changes nothing);
- no pictures are drawn: a product reuses a picture the demo already drew for a product of
  the same category, when there is one (by path; the files are shared);
- on SQLite each chunk is one transaction with `synchronous=OFF`: a crash loses at most the
  chunk being written (the chunks before it are committed) and never half a product;
- the search index learns about the new rows through outbox rows written in bulk in the same
  transactions (`outbox=True`, the default: a running worker or `tradepost reindex` picks
  them up). With `outbox=False` no outbox rows are written and `tradepost reindex` must be
  run afterwards; a rebuild starts from the database, so it needs no outbox rows.

The output is deterministic for a seed and a starting database.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.hashers import make_password
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Max, Model
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.catalog.models import Product, ProductImage, ProductStatus, ProductTranslation
from tradepost.companies.models import Company, Membership, Role
from tradepost.core.database import refresh_planner_statistics
from tradepost.core.forking import forked_pool
from tradepost.demo.errors import DemoError, DemoErrorCode
from tradepost.demo.generator import (
    CHINESE_PRODUCT_SHARE,
    CompanySpec,
    PersonSpec,
    ProductSpec,
    _Planner,
    _weighted_counts,
)
from tradepost.demo.selectors import leaf_categories
from tradepost.demo.vocabulary import CHINESE, load_vocabulary
from tradepost.search.models import IndexOutbox, OutboxKind

#: Products written per transaction.
CHUNK_SIZE = 20_000
#: Rows per INSERT statement (SQLite allows 32,766 parameters per statement).
ROWS_PER_STATEMENT = 500
#: Companies per product when the number of companies is not given, and their bounds.
PRODUCTS_PER_COMPANY = 20
MAX_GENERATED_COMPANIES = 100_000
MAX_GENERATED_PRODUCTS = 20_000_000
#: Pictures remembered per category for reuse.
PICTURES_PER_CATEGORY = 4

Progress = Callable[[int], None]


@dataclass(frozen=True)
class GenerateResult:
    companies: int
    products: int
    translations: int
    images: int
    outbox_rows: int
    seconds: float

    @property
    def products_per_second(self) -> float:
        return self.products / self.seconds if self.seconds > 0 else 0.0


def default_company_count(products: int) -> int:
    return min(MAX_GENERATED_COMPANIES, max(2, products // PRODUCTS_PER_COMPANY))


def _check_counts(products: int, companies: int) -> None:
    if not 2 <= companies <= MAX_GENERATED_COMPANIES:
        raise DemoError(
            _("The number of companies must be between 2 and %(max)d.")
            % {"max": MAX_GENERATED_COMPANIES},
            code=DemoErrorCode.INVALID_COUNTS,
        )
    if not 1 <= products <= MAX_GENERATED_PRODUCTS:
        raise DemoError(
            _("The number of products must be between 1 and %(max)d.")
            % {"max": MAX_GENERATED_PRODUCTS},
            code=DemoErrorCode.INVALID_COUNTS,
        )


# --- raw inserts ------------------------------------------------------------------------------


class _Table:
    """A multi-row INSERT for some fields of a model (columns and quoting from _meta)."""

    def __init__(self, model: type[Model], field_names: list[str]) -> None:
        meta = model._meta
        quote = connection.ops.quote_name
        fields = [meta.get_field(name) for name in field_names]
        columns = [str(getattr(f, "column", f.name)) for f in fields]
        self.model = model
        self.width = len(field_names)
        # Names come from the models' _meta and are quoted; values are always parameters.
        self.head = "INSERT INTO {} ({}) VALUES ".format(  # noqa: S608
            quote(meta.db_table), ", ".join(quote(column) for column in columns)
        )
        # PostgreSQL: JSON arrives as text and is cast (Django's own adapter is not picklable
        # across the planning processes).
        cast = connection.vendor == "postgresql"
        placeholders = [
            "%s::jsonb" if cast and f.get_internal_type() == "JSONField" else "%s" for f in fields
        ]
        self.row = "(" + ", ".join(placeholders) + ")"

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        with connection.cursor() as cursor:
            for start in range(0, len(rows), ROWS_PER_STATEMENT):
                batch = rows[start : start + ROWS_PER_STATEMENT]
                sql = self.head + ", ".join([self.row] * len(batch))
                cursor.execute(sql, [value for row in batch for value in row])


_PRODUCT_FIELDS = [
    "id", "company", "slug", "original_language", "title", "description", "category",
    "keywords", "attributes", "moq", "moq_unit", "price_min", "price_max", "currency",
    "incoterms", "port_of_loading", "payment_terms", "lead_time_days", "supply_capacity",
    "supply_capacity_unit", "hs_code", "origin_country", "status", "published_at",
    "created_at", "updated_at", "sku",
]  # fmt: skip


@contextmanager
def _fast_writes() -> Iterator[None]:
    """SQLite: no fsync per commit while loading (a crash loses only the open chunk). Not
    inside a caller's transaction, where SQLite cannot change it (and nothing commits)."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (cache_size,) = cursor.fetchone()
        cursor.execute("PRAGMA synchronous=OFF")
        cursor.execute("PRAGMA cache_size=-262144")  # 256 MB
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA cache_size={int(cache_size)}")


def _relax_commit() -> None:
    """PostgreSQL: this transaction's commit need not wait for the disk."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


# --- companies ----------------------------------------------------------------------------


def _plan_companies(planner: _Planner, count: int) -> list[CompanySpec]:
    """Companies as the demo plans them, owned by their own mailboxes (the demo's logins
    are not reused)."""
    plan = planner.plan(companies=count, products=0)
    for spec in plan.companies:
        mailbox = "purchasing" if spec.is_buyer_only else "sales"
        spec.owner = PersonSpec(
            email=f"{mailbox}@{spec.slug}.example",
            full_name=spec.owner.full_name,
            preferred_language=spec.owner.preferred_language,
        )
    return plan.companies


def _write_companies(specs: list[CompanySpec], *, outbox: bool) -> list[int]:
    """Users, companies and owner memberships; returns the companies' ids in spec order."""
    now = timezone.now()
    password = make_password(None)  # unusable: generated owners cannot log in
    with transaction.atomic():
        _relax_commit()
        users = [
            User(
                email=spec.owner.email,
                full_name=spec.owner.full_name,
                preferred_language=spec.owner.preferred_language,
                email_verified_at=now,
                password=password,
            )
            for spec in specs
        ]
        User.objects.bulk_create(users, batch_size=ROWS_PER_STATEMENT)
        # The description is escaped by the planner.
        rows = [spec.company_row(description=spec.description) for spec in specs]
        Company.objects.bulk_create(rows, batch_size=ROWS_PER_STATEMENT)
        # Both databases return the new ids from a bulk insert (SQLite 3.35+, PostgreSQL).
        if any(row.pk is None for row in (*users, *rows)):  # pragma: no cover
            raise RuntimeError("the database did not return the new rows' ids")
        ids = [row.pk for row in rows]
        Membership.objects.bulk_create(
            [
                Membership(user_id=user.pk, company_id=company_id, role=Role.OWNER)
                for user, company_id in zip(users, ids, strict=True)
            ],
            batch_size=ROWS_PER_STATEMENT,
        )
        if outbox:
            created = _adapt_datetime(now)
            _Table(IndexOutbox, ["kind", "object_id", "created_at"]).insert(
                [(OutboxKind.COMPANY.value, i, created) for i in ids]
            )
    return ids


# --- products -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    """Whole suppliers' catalogues planned together (by one process, from its own seed)."""

    number: int
    first_id: int
    companies: tuple[tuple[int, int], ...]  # (company index, number of products)

    @property
    def size(self) -> int:
        return sum(count for _index, count in self.companies)


def _units(
    planner: _Planner, specs: list[CompanySpec], total: int, first_id: int, size: int
) -> list[_Unit]:
    """The demo planner's product mix (60% Chinese, suppliers weighted as in the demo), cut
    into units of about `size` products."""
    rng = planner.rng
    suppliers = [
        c
        for c in specs
        if not c.is_buyer_only and any(planner.templates_by_top.get(top) for top in c.industries)
    ]
    chinese = [c for c in suppliers if c.original_language in CHINESE]
    others = [c for c in suppliers if c.original_language not in CHINESE]
    chinese_total = round(total * CHINESE_PRODUCT_SHARE) if others else total
    if not chinese:
        chinese_total = 0
    plan: list[tuple[int, int]] = []
    for group, group_total in ((chinese, chinese_total), (others, total - chinese_total)):
        weights = [rng.uniform(0.4, 1.6) for _company in group]
        for company, count in zip(group, _weighted_counts(group_total, weights), strict=True):
            if count:
                plan.append((company.index, count))
    units: list[_Unit] = []
    current: list[tuple[int, int]] = []
    next_id = first_id
    for entry in plan:
        current.append(entry)
        if sum(count for _index, count in current) >= size:
            units.append(_Unit(len(units), next_id, tuple(current)))
            next_id += units[-1].size
            current = []
    if current:
        units.append(_Unit(len(units), next_id, tuple(current)))
    return units


@dataclass
class _Rows:
    products: list[tuple[Any, ...]]
    translations: list[tuple[Any, ...]]
    images: list[tuple[Any, ...]]
    outbox: list[tuple[Any, ...]]


@dataclass
class _Context:
    """What planning a unit needs; set before the planning processes fork."""

    planner: _Planner
    specs: list[CompanySpec]
    company_ids: list[int]
    pictures: dict[int, list[tuple[str, str, int, int]]]
    now: datetime
    outbox: bool
    seed: int


_context: _Context | None = None


def _adapt_datetime(value: datetime) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


def _json(value: Any) -> str:
    # As Django's JSONField writes it; the INSERT casts it on PostgreSQL.
    return json.dumps(value)


def _plan_unit(unit: _Unit) -> _Rows:
    """The rows of one unit's products (runs in a planning process, or in this one)."""
    context = _context
    assert context is not None
    planner = context.planner
    planner.rng = random.Random(f"{context.seed}:{unit.number}")
    rows = _Rows([], [], [], [])
    created = _adapt_datetime(context.now)
    published = ProductStatus.PUBLISHED.value
    product_id = unit.first_id
    for company_index, count in unit.companies:
        company = context.specs[company_index]
        pool = [t for top in company.industries for t in planner.templates_by_top.get(top, [])]
        catalogue = planner.catalogue(company, pool)
        planner.titles.clear()  # titles are kept apart within a supplier's catalogue
        for number in range(count):
            template = catalogue[number] if number < len(catalogue) else None
            item = planner.product(company, template or planner.rng.choice(catalogue))
            _add_rows(rows, item, product_id, context, created, published)
            product_id += 1
    return rows


def _add_rows(
    rows: _Rows,
    item: ProductSpec,
    product_id: int,
    context: _Context,
    created: Any,
    published: str,
) -> None:
    when = _adapt_datetime(context.now - timedelta(minutes=item.published_minutes_ago))
    rows.products.append(
        (
            product_id,
            context.company_ids[item.company_index],
            item.slug,
            item.original_language,
            item.title,
            item.description,
            item.category_id,
            item.keywords,
            _json(item.attributes),
            item.moq,
            item.moq_unit,
            item.price_min,
            item.price_max,
            item.currency,
            _json(item.incoterms),
            item.port_of_loading,
            _json(item.payment_terms),
            item.lead_time_days,
            item.supply_capacity,
            item.supply_capacity_unit,
            item.hs_code,
            item.origin_country,
            published,
            when,
            when,
            when,
            "",  # no SKU: generated listings are not imported from a supplier's sheet
        )
    )
    for translation in item.translations:
        rows.translations.append(
            (product_id, translation.language, translation.title[:200], translation.description)
        )
    options = context.pictures.get(item.category_id)
    if options:
        image, thumbnail, width, height = options[product_id % len(options)]
        rows.images.append((product_id, image, thumbnail, width, height, 0, created))
    if context.outbox:
        rows.outbox.append((OutboxKind.PRODUCT.value, product_id, created))


def _pictures_by_category() -> dict[int, list[tuple[str, str, int, int]]]:
    """Pictures already on storage (drawn by `tradepost demo`), a few per category."""
    found: dict[int, list[tuple[str, str, int, int]]] = {}
    rows = (
        ProductImage.objects.filter(position=0)
        .order_by("id")
        .values_list("product__category_id", "image", "thumbnail", "width", "height")[:20_000]
    )
    for category_id, image, thumbnail, width, height in rows:
        pictures = found.setdefault(category_id, [])
        if len(pictures) < PICTURES_PER_CATEGORY and (image, thumbnail) not in {
            (p[0], p[1]) for p in pictures
        }:
            pictures.append((image, thumbnail, width, height))
    return found


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def generate_catalogue(
    *,
    products: int,
    companies: int | None = None,
    seed: int,
    outbox: bool = True,
    images: bool = True,
    chunk_size: int = CHUNK_SIZE,
    workers: int = 1,
    progress: Progress | None = None,
) -> GenerateResult:
    """Append `products` published products of `companies` new companies (default: one per
    20 products) to the database, planning them in `workers` processes. See the module's
    docstring for what is skipped. The result depends on the seed, the counts, the chunk
    size and the database's companies, not on the number of workers."""
    global _context
    started = time.perf_counter()
    companies = default_company_count(products) if companies is None else companies
    _check_counts(products, companies)
    leaves = leaf_categories()
    if not leaves:
        raise DemoError(
            _("The category tree is empty; run `tradepost migrate` first."),
            code=DemoErrorCode.NO_CATEGORIES,
        )
    planner = _Planner(seed=seed, vocab=load_vocabulary(), leaves=leaves)
    # New slugs and names must not collide with the companies already there.
    planner.slugs.update(Company.objects.values_list("slug", flat=True))
    planner.legal_names.update(Company.objects.values_list("legal_name", flat=True))
    specs = _plan_companies(planner, companies)
    pictures = _pictures_by_category() if images else {}

    counts = {"products": 0, "translations": 0, "images": 0, "outbox": 0}
    with _fast_writes():
        company_ids = _write_companies(specs, outbox=outbox)
        counts["outbox"] += len(company_ids) if outbox else 0
        first_id = (Product.objects.aggregate(last=Max("id"))["last"] or 0) + 1
        units = _units(planner, specs, products, first_id, chunk_size)
        _context = _Context(planner, specs, company_ids, pictures, timezone.now(), outbox, seed)
        try:
            for rows in _planned(units, workers):
                _insert(rows, counts)
                if progress is not None:
                    progress(len(rows.products))
        finally:
            _context = None
    if connection.vendor == "postgresql":
        _reset_sequences()
    refresh_planner_statistics()
    return GenerateResult(
        companies=len(company_ids),
        products=counts["products"],
        translations=counts["translations"],
        images=counts["images"],
        outbox_rows=counts["outbox"],
        seconds=time.perf_counter() - started,
    )


def _planned(units: list[_Unit], workers: int) -> Iterator[_Rows]:
    """Each unit's rows, in order; planned in forked processes when workers > 1 (they only
    compute, never touch the database)."""
    if workers <= 1 or len(units) <= 1:
        for unit in units:
            yield _plan_unit(unit)
        return
    with forked_pool(min(workers, len(units))) as pool:
        yield from pool.imap(_plan_unit, units)


def _insert(rows: _Rows, counts: dict[str, int]) -> None:
    with transaction.atomic():
        _relax_commit()
        _Table(Product, _PRODUCT_FIELDS).insert(rows.products)
        _Table(ProductTranslation, ["product", "language", "title", "description"]).insert(
            rows.translations
        )
        _Table(
            ProductImage,
            ["product", "image", "thumbnail", "width", "height", "position", "created_at"],
        ).insert(rows.images)
        _Table(IndexOutbox, ["kind", "object_id", "created_at"]).insert(rows.outbox)
    counts["products"] += len(rows.products)
    counts["translations"] += len(rows.translations)
    counts["images"] += len(rows.images)
    counts["outbox"] += len(rows.outbox)


def _reset_sequences() -> None:
    """PostgreSQL: move the product id sequence past the ids written here."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [Product]):
            cursor.execute(sql)

"""What the index holds about each product and company, read from the database in bulk.

Both the outbox indexer and `tradepost reindex` read through these functions, so a document
built by either is the same. Reads are plain SQL statements over a chunk of ids (no QuerySet
compilation, no model instances), with each column's value converted the way Django would
convert it; JSON columns are decoded through a memo, since attribute lists and Incoterms
repeat across a catalogue, and so are descriptions' plain texts.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import connections, router
from django.db.models import Model, Q

from tradepost.catalog.models import (
    Category,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
)
from tradepost.companies.models import Company
from tradepost.core.html import html_to_text

#: The deepest category level the index keeps a filter field for (0 = top level).
MAX_CATEGORY_DEPTH = 5


@dataclass(frozen=True)
class CategoryInfo:
    id: int
    parent_id: int | None
    depth: int
    path: str
    names: tuple[str, str, str]  # en, zh-hans, zh-hant

    def name_for(self, language: str) -> str:
        if language == "zh-hans":
            return self.names[1]
        if language == "zh-hant":
            return self.names[2]
        return self.names[0]


@dataclass
class CategoryTree:
    """The whole category tree in memory (a few thousand rows at most)."""

    nodes: dict[int, CategoryInfo]

    @classmethod
    def load(cls) -> CategoryTree:
        rows = Category.objects.values_list(
            "id", "parent_id", "depth", "path", "name_en", "name_zh_hans", "name_zh_hant"
        )
        return cls(
            {
                row[0]: CategoryInfo(
                    id=row[0], parent_id=row[1], depth=row[2], path=row[3], names=row[4:7]
                )
                for row in rows
            }
        )

    def lineage(self, category_id: int) -> list[CategoryInfo]:
        """The category and its ancestors, top level first."""
        chain: list[CategoryInfo] = []
        node = self.nodes.get(category_id)
        while node is not None and len(chain) <= 64:
            chain.append(node)
            node = self.nodes.get(node.parent_id) if node.parent_id is not None else None
        chain.reverse()
        return chain


@dataclass
class CompanyRecord:
    id: int
    legal_name: str
    english_name: str
    country: str
    is_verified: bool
    business_types: list[str]
    main_products: str
    description: str
    original_language: str
    updated_at: datetime
    #: Share of buyers' asks answered within 24 hours (messaging.selectors, ADR 0007);
    #: None when nobody has asked yet.
    response_rate: float | None = None


@dataclass
class ProductRecord:
    id: int
    company: CompanyRecord
    title: str
    description: str
    original_language: str
    keywords: str
    attributes: list[str]
    category_id: int
    moq: Decimal
    price_min: Decimal | None
    price_max: Decimal | None
    currency: str
    incoterms: list[str]
    lead_time_days: int | None
    published_at: datetime | None
    updated_at: datetime
    translations: list[tuple[str, str, str]] = field(default_factory=list)
    image_count: int = 0


_PRODUCT_COLUMNS = (
    "id",
    "status",
    "company_id",
    "title",
    "description",
    "original_language",
    "keywords",
    "attributes",
    "category_id",
    "moq",
    "price_min",
    "price_max",
    "currency",
    "incoterms",
    "lead_time_days",
    "published_at",
    "updated_at",
)
_COMPANY_COLUMNS = (
    "id",
    "legal_name",
    "english_name",
    "country",
    "is_verified",
    "business_types",
    "main_products",
    "description",
    "original_language",
    "updated_at",
)


#: A tag without quoted attributes, and what sends a text down the full HTML parser.
_SIMPLE_TAG_RE = re.compile(r"</?[A-Za-z][^<>\"']*>")
_NEEDS_PARSER_RE = re.compile(r"<[^<>]*[\"'<]|<!|<\?|<(?:script|style|template|textarea)\b", re.I)


def plain_text(value: str) -> str:
    """Text of a description that may hold sanitised HTML.

    Descriptions are sanitised when written, so most hold only simple tags (<p>, <li>,
    <strong>) without attributes; for those, removing the tags gives the text the HTML
    parser gives (`core.html.html_to_text`) at a fraction of the cost. Anything else (quoted
    attributes, comments, a stray "<") goes through the parser.
    """
    if not value:
        return ""
    if "<" not in value and "&" not in value:
        return value
    if "<" in value and _NEEDS_PARSER_RE.search(value):
        return html.unescape(html_to_text(value))
    stripped = _SIMPLE_TAG_RE.sub("", value)
    if "<" in stripped or ">" in stripped or "\xa0" in stripped:
        return html.unescape(html_to_text(value))
    return html.unescape(" ".join(stripped.split()))


class _Memo:
    """A bounded memo (cleared when full) for values that repeat across a catalogue."""

    def __init__(self, function: Any, max_entries: int) -> None:
        self.function = function
        self.max_entries = max_entries
        self.values: dict[Any, Any] = {}

    def __call__(self, key: Any) -> Any:
        try:
            return self.values[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable (already decoded) value
            return self.function(key)
        if len(self.values) >= self.max_entries:
            self.values.clear()
        value = self.values[key] = self.function(key)
        return value


def _decoded(raw: Any) -> Any:
    """A JSON column's value: the database driver may give text or decoded values."""
    if isinstance(raw, str | bytes):
        try:
            return json.loads(raw)
        except ValueError:
            return None
    return raw


_plain_text = _Memo(plain_text, 20_000)
_attribute_texts = _Memo(lambda raw: attribute_texts(_decoded(raw)), 50_000)
_string_list = _Memo(lambda raw: string_list(_decoded(raw)), 10_000)


def attribute_texts(raw: Any) -> list[str]:
    """Names and values of a product's attributes, whatever shape the JSON has."""
    items: list[Any]
    if isinstance(raw, dict):
        items = list(raw.items())
    elif isinstance(raw, list):
        items = raw
    else:
        return []
    texts: list[str] = []
    for item in items:
        if isinstance(item, dict):
            parts = [item.get("name"), item.get("value")]
        elif isinstance(item, list | tuple):
            parts = list(item)
        else:
            parts = [item]
        for part in parts:
            if isinstance(part, str | int | float) and str(part).strip():
                texts.append(str(part))
    return texts


def string_list(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    return [item for item in raw if isinstance(item, str) and item]


# ---------------------------------------------------------------------------------------
# Plain SQL reads.

#: Columns read raw (decoded through the memos above) rather than by Django's converters.
_RAW_COLUMNS = frozenset({"attributes", "incoterms", "business_types"})
#: Ids per statement when reading by a list of ids (SQLite allows 999 parameters).
_IDS_PER_STATEMENT = 900


class _Select:
    """`SELECT <columns> FROM <table>` for a model, with the converters Django applies to
    each column's values (so rows come back as a QuerySet's `values()` would give them)."""

    def __init__(self, model: type[Model], names: Sequence[str]) -> None:
        self.model = model
        self.names = tuple(names)

    def _plan(self, db: str) -> tuple[str, list[tuple[int, tuple[Any, ...], Any]]]:
        cached = getattr(self, "_cached", None)
        if cached is not None and cached[0] == db:
            return cached[1], cached[2]
        connection = connections[db]
        quote = connection.ops.quote_name
        table = self.model._meta.db_table
        columns = []
        converters = []
        for index, name in enumerate(self.names):
            model_field = self.model._meta.get_field(name)
            columns.append(f"{quote(table)}.{quote(str(model_field.column))}")  # type: ignore[union-attr]
            if name in _RAW_COLUMNS:
                continue
            expression = model_field.get_col(table)  # type: ignore[union-attr]
            found = tuple(
                connection.ops.get_db_converters(expression)
                + model_field.get_db_converters(connection)  # type: ignore[union-attr]
            )
            if found:
                converters.append((index, found, expression))
        sql = f"SELECT {', '.join(columns)} FROM {quote(table)}"  # noqa: S608
        self._cached = (db, sql, converters)
        return sql, converters

    def rows(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """Rows matching `where` (SQL over this model's columns, `%s` parameters)."""
        db = router.db_for_read(self.model)
        connection = connections[db]
        sql, converters = self._plan(db)
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} WHERE {where}", list(params))
            raw_rows = cursor.fetchall()
        names = self.names
        out = []
        for raw in raw_rows:
            values = list(raw)
            for index, functions, expression in converters:
                value = values[index]
                for function in functions:
                    value = function(value, expression, connection)
                values[index] = value
            out.append(dict(zip(names, values, strict=True)))
        return out


def _quote(model: type[Model], name: str) -> str:
    db = router.db_for_read(model)
    quote = connections[db].ops.quote_name
    column = str(model._meta.get_field(name).column)  # type: ignore[union-attr]
    return f"{quote(model._meta.db_table)}.{quote(column)}"


def _in(model: type[Model], name: str, count: int) -> str:
    return f"{_quote(model, name)} IN ({', '.join(['%s'] * count)})"


_COMPANIES = _Select(Company, _COMPANY_COLUMNS)
_PRODUCTS = _Select(Product, _PRODUCT_COLUMNS)
_TRANSLATIONS = _Select(ProductTranslation, ("product_id", "language", "title", "description"))
_IMAGES = _Select(ProductImage, ("product_id",))


def _company_record(row: dict[str, Any]) -> CompanyRecord:
    return CompanyRecord(
        id=row["id"],
        legal_name=row["legal_name"] or "",
        english_name=row["english_name"] or "",
        country=(row["country"] or "").upper(),
        is_verified=bool(row["is_verified"]),
        business_types=list(_string_list(row["business_types"])),
        main_products=row["main_products"] or "",
        description=_plain_text(row["description"] or ""),
        original_language=row["original_language"] or "",
        updated_at=row["updated_at"],
    )


def load_companies(ids: Iterable[int]) -> dict[int, CompanyRecord]:
    """Companies by id (all of them; a company is listed whatever its products' state)."""
    ids = sorted(set(ids))
    found: dict[int, CompanyRecord] = {}
    for start in range(0, len(ids), _IDS_PER_STATEMENT):
        chunk = ids[start : start + _IDS_PER_STATEMENT]
        for row in _COMPANIES.rows(_in(Company, "id", len(chunk)), chunk):
            found[row["id"]] = _company_record(row)
    _attach_response_rates(found)
    return found


def _attach_response_rates(companies: dict[int, CompanyRecord]) -> None:
    """Each company's response rate as a supplier (one query per chunk of companies)."""
    from tradepost.sourcing.responsiveness import supplier_responsiveness_many

    ids = list(companies)
    for start in range(0, len(ids), _IDS_PER_STATEMENT):
        chunk = ids[start : start + _IDS_PER_STATEMENT]
        for company_id, measured in supplier_responsiveness_many(chunk).items():
            record = companies.get(company_id)
            if record is not None:
                record.response_rate = measured.response_rate


def _attach_details(products: dict[int, ProductRecord], where: str, params: list[Any]) -> None:
    """Translations and picture counts of `products`, read with `where` over product ids."""
    for row in _TRANSLATIONS.rows(
        where.format(column=_quote(ProductTranslation, "product")), params
    ):
        record = products.get(row["product_id"])
        if record is not None:
            record.translations.append(
                (row["language"], row["title"] or "", _plain_text(row["description"] or ""))
            )
    image_counts: dict[int, int] = defaultdict(int)
    for row in _IMAGES.rows(where.format(column=_quote(ProductImage, "product")), params):
        image_counts[row["product_id"]] += 1
    for product_id, count in image_counts.items():
        record = products.get(product_id)
        if record is not None:
            record.image_count = count


def _product_records(
    rows: list[dict[str, Any]], companies: dict[int, CompanyRecord]
) -> dict[int, ProductRecord]:
    records: dict[int, ProductRecord] = {}
    for row in rows:
        company = companies.get(row["company_id"])
        if company is None:
            continue
        records[row["id"]] = ProductRecord(
            id=row["id"],
            company=company,
            title=row["title"] or "",
            description=_plain_text(row["description"] or ""),
            original_language=row["original_language"] or "",
            keywords=row["keywords"] or "",
            attributes=_attribute_texts(row["attributes"]),
            category_id=row["category_id"],
            moq=row["moq"],
            price_min=row["price_min"],
            price_max=row["price_max"],
            currency=(row["currency"] or "").upper(),
            incoterms=[c.upper() for c in _string_list(row["incoterms"])],
            lead_time_days=row["lead_time_days"],
            published_at=row["published_at"],
            updated_at=row["updated_at"],
        )
    return records


def _published_rows(where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    """The published products among the rows `where` selects (by id). The status is
    checked here rather than in SQL: with a condition on the status, SQLite's planner
    (lacking statistics, as after a bulk load) walks the (status, published_at) index over
    every published product instead of looking the ids up, once per chunk."""
    return [
        row for row in _PRODUCTS.rows(where, params) if row["status"] == ProductStatus.PUBLISHED
    ]


def load_published_products(ids: Iterable[int]) -> dict[int, ProductRecord]:
    """The published products among `ids`; the others (drafts, hidden, deleted, gone) are
    absent from the result, which tells the indexer to remove them."""
    ids = sorted(set(ids))
    found: dict[int, ProductRecord] = {}
    for start in range(0, len(ids), _IDS_PER_STATEMENT):
        chunk = ids[start : start + _IDS_PER_STATEMENT]
        rows = _published_rows(_in(Product, "id", len(chunk)), chunk)
        companies = load_companies(row["company_id"] for row in rows)
        records = _product_records(rows, companies)
        if records:
            record_ids = list(records)
            where = "{column} IN (" + ", ".join(["%s"] * len(record_ids)) + ")"
            _attach_details(records, where, record_ids)
        found.update(records)
    return found


def _load_range(
    first_id: int, last_id: int, companies: dict[int, CompanyRecord]
) -> list[ProductRecord]:
    rows = _published_rows(
        f"{_quote(Product, 'id')} BETWEEN %s AND %s ORDER BY {_quote(Product, 'id')}",
        [first_id, last_id],
    )
    missing = {row["company_id"] for row in rows} - companies.keys()
    if missing:
        if len(companies) > 100_000:
            companies.clear()
            missing = {row["company_id"] for row in rows}
        companies.update(load_companies(missing))
    records = _product_records(rows, companies)
    if records:
        _attach_details(records, "{column} BETWEEN %s AND %s", [first_id, last_id])
    return list(records.values())


def published_product_id_ranges(*, chunk_size: int = 2000) -> list[tuple[int, int]]:
    """(first id, last id) of consecutive runs of `chunk_size` published products."""
    ranges: list[tuple[int, int]] = []
    first = last = 0
    count = 0
    ids = (
        Product.objects.filter(status=ProductStatus.PUBLISHED)
        .order_by("id")
        .values_list("id", flat=True)
        .iterator(chunk_size=10_000)
    )
    for product_id in ids:
        if count == 0:
            first = product_id
        last = product_id
        count += 1
        if count == chunk_size:
            ranges.append((first, last))
            count = 0
    if count:
        ranges.append((first, last))
    return ranges


def iter_published_products(*, chunk_size: int = 2000) -> Iterator[list[ProductRecord]]:
    """Every published product, in id order, a chunk at a time."""
    companies: dict[int, CompanyRecord] = {}
    for first_id, last_id in published_product_id_ranges(chunk_size=chunk_size):
        yield _load_range(first_id, last_id, companies)


_range_companies: dict[int, CompanyRecord] = {}


def load_published_product_range(first_id: int, last_id: int) -> list[ProductRecord]:
    """The published products with ids from `first_id` to `last_id` (companies are kept
    between calls in this process: a rebuild reads them once per analysis process)."""
    return _load_range(first_id, last_id, _range_companies)


def forget_loaded_companies() -> None:
    _range_companies.clear()


def iter_companies(*, chunk_size: int = 2000) -> Iterator[list[CompanyRecord]]:
    last_id = 0
    while True:
        rows = list(
            Company.objects.filter(id__gt=last_id)
            .order_by("id")
            .values(*_COMPANY_COLUMNS)[:chunk_size]
        )
        if not rows:
            return
        last_id = rows[-1]["id"]
        records = {row["id"]: _company_record(row) for row in rows}
        _attach_response_rates(records)
        yield list(records.values())


def published_product_ids_of_companies(company_ids: Iterable[int]) -> list[int]:
    return list(
        Product.objects.filter(
            company_id__in=list(company_ids), status=ProductStatus.PUBLISHED
        ).values_list("id", flat=True)
    )


def published_product_ids_in_categories(category_ids: Iterable[int]) -> list[int]:
    """Published products filed under any of the categories or their descendants."""
    paths = list(Category.objects.filter(id__in=list(category_ids)).values_list("path", flat=True))
    ids: set[int] = set()
    for path in paths:
        ids.update(
            Product.objects.filter(status=ProductStatus.PUBLISHED)
            .filter(Q(category__path=path) | Q(category__path__startswith=f"{path}."))
            .values_list("id", flat=True)
        )
    return sorted(ids)


# ---------------------------------------------------------------------------------------
# Buying requests.


@dataclass
class RequestRecord:
    """The public part of an open buying request (the buyer's identity is never indexed)."""

    id: int
    title: str
    description: str
    original_language: str
    category_id: int
    quantity: Decimal
    destination_country: str
    deadline: datetime
    created_at: datetime
    updated_at: datetime


_REQUEST_COLUMNS = (
    "id",
    "title",
    "description",
    "original_language",
    "category_id",
    "quantity",
    "destination_country",
    "deadline",
    "created_at",
    "updated_at",
)


def _open_requests() -> Any:
    from django.utils import timezone

    from tradepost.sourcing.models import BuyingRequest, RequestStatus

    return BuyingRequest.objects.filter(status=RequestStatus.OPEN, deadline__gt=timezone.now())


def _request_record(row: dict[str, Any]) -> RequestRecord:
    return RequestRecord(
        id=row["id"],
        title=row["title"] or "",
        description=_plain_text(row["description"] or ""),
        original_language=row["original_language"] or "",
        category_id=row["category_id"],
        quantity=row["quantity"],
        destination_country=(row["destination_country"] or "").upper(),
        deadline=row["deadline"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load_open_requests(ids: Iterable[int]) -> dict[int, RequestRecord]:
    """The searchable requests among `ids` (open, deadline ahead); the others (closed,
    awarded, expired, past their deadline, deleted) are absent, so the indexer removes them."""
    ids = sorted(set(ids))
    found: dict[int, RequestRecord] = {}
    for start in range(0, len(ids), _IDS_PER_STATEMENT):
        chunk = ids[start : start + _IDS_PER_STATEMENT]
        for row in _open_requests().filter(id__in=chunk).values(*_REQUEST_COLUMNS):
            found[row["id"]] = _request_record(row)
    return found


def iter_open_requests(*, chunk_size: int = 2000) -> Iterator[list[RequestRecord]]:
    last_id = 0
    while True:
        rows = list(
            _open_requests()
            .filter(id__gt=last_id)
            .order_by("id")
            .values(*_REQUEST_COLUMNS)[:chunk_size]
        )
        if not rows:
            return
        last_id = rows[-1]["id"]
        yield [_request_record(row) for row in rows]


def open_request_versions() -> Iterator[tuple[int, datetime]]:
    """(id, updated_at) of every searchable request, for `reindex --check`."""
    yield from (
        _open_requests().order_by("id").values_list("id", "updated_at").iterator(chunk_size=5000)
    )


def open_request_ids_in_categories(category_ids: Iterable[int]) -> list[int]:
    """Searchable requests filed under any of the categories or their descendants (a
    renamed category changes the names their documents hold)."""
    paths = list(Category.objects.filter(id__in=list(category_ids)).values_list("path", flat=True))
    ids: set[int] = set()
    for path in paths:
        ids.update(
            _open_requests()
            .filter(Q(category__path=path) | Q(category__path__startswith=f"{path}."))
            .values_list("id", flat=True)
        )
    return sorted(ids)

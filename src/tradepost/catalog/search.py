"""The published products' records for the search index (`search.sources`), read in bulk
with plain SQL (`search.documents.Select`): each product with its company (and the company's
response rate, through `search.documents.load_companies`), its translations, the stored
machine translations of its title (docs/adr/0036) and how many pictures it has. Registered
in `CatalogConfig.ready`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q

from tradepost.catalog.hydration import load_products, product_card
from tradepost.catalog.machine_texts import indexed_title_translations_wanted
from tradepost.catalog.models import (
    Category,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
)
from tradepost.companies.selectors import suspended_company_ids
from tradepost.search.documents import (
    CompanyRecord,
    ProductRecord,
    Select,
    attribute_texts_memo,
    id_batches,
    load_companies,
    plain_text_memo,
    sql_column,
    sql_in,
    string_list_memo,
)
from tradepost.search.sources import ProductSource
from tradepost.translation.selectors import stored_translations

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

_PRODUCTS = Select(Product, _PRODUCT_COLUMNS)
_TRANSLATIONS = Select(ProductTranslation, ("product_id", "language", "title", "description"))
_IMAGES = Select(ProductImage, ("product_id",))


def _attach_details(products: dict[int, ProductRecord], where: str, params: list[Any]) -> None:
    """Translations and picture counts of `products`, read with `where` over product ids."""
    for row in _TRANSLATIONS.rows(
        where.format(column=sql_column(ProductTranslation, "product")), params
    ):
        record = products.get(row["product_id"])
        if record is not None:
            record.translations.append(
                (row["language"], row["title"] or "", plain_text_memo(row["description"] or ""))
            )
    image_counts: dict[int, int] = defaultdict(int)
    for row in _IMAGES.rows(where.format(column=sql_column(ProductImage, "product")), params):
        image_counts[row["product_id"]] += 1
    for product_id, count in image_counts.items():
        record = products.get(product_id)
        if record is not None:
            record.image_count = count
    _attach_machine_titles(products)


def _attach_machine_titles(products: dict[int, ProductRecord]) -> None:
    """The stored machine translations of the titles of `products` (after their supplier
    translations, which win over them), in one read (`translation.selectors`)."""
    wanted = {
        product_id: indexed_title_translations_wanted(
            record.title,
            record.original_language,
            (language for language, title, _description in record.translations if title),
        )
        for product_id, record in products.items()
    }
    found = stored_translations(item for items in wanted.values() for item in items)
    if not found:
        return
    for product_id, items in wanted.items():
        products[product_id].machine_titles = [found[item].text for item in items if item in found]


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
            description=plain_text_memo(row["description"] or ""),
            original_language=row["original_language"] or "",
            keywords=row["keywords"] or "",
            attributes=attribute_texts_memo(row["attributes"]),
            category_id=row["category_id"],
            moq=row["moq"],
            price_min=row["price_min"],
            price_max=row["price_max"],
            currency=(row["currency"] or "").upper(),
            incoterms=[c.upper() for c in string_list_memo(row["incoterms"])],
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
    found: dict[int, ProductRecord] = {}
    for chunk in id_batches(ids):
        rows = _published_rows(sql_in(Product, "id", len(chunk)), chunk)
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
        f"{sql_column(Product, 'id')} BETWEEN %s AND %s ORDER BY {sql_column(Product, 'id')}",
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


def published_product_id_ranges(chunk_size: int) -> list[tuple[int, int]]:
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


_range_companies: dict[int, CompanyRecord] = {}


def load_published_product_range(first_id: int, last_id: int) -> list[ProductRecord]:
    """The published products with ids from `first_id` to `last_id` (companies are kept
    between calls in this process: a rebuild reads them once per analysis process)."""
    return _load_range(first_id, last_id, _range_companies)


def forget_loaded_companies() -> None:
    _range_companies.clear()


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


def _searchable_products() -> Any:
    """The published products of companies in good standing: those the index holds."""
    return Product.objects.filter(status=ProductStatus.PUBLISHED).exclude(
        company_id__in=suspended_company_ids()
    )


def published_product_versions() -> Iterator[tuple[int, datetime, datetime]]:
    yield from (
        _searchable_products()
        .order_by("id")
        .values_list("id", "updated_at", "company__updated_at")
        .iterator(chunk_size=5000)
    )


def published_product_count() -> int:
    return _searchable_products().count()


def category_rows() -> Iterable[tuple[Any, ...]]:
    return Category.objects.values_list(
        "id", "parent_id", "depth", "path", "name_en", "name_zh_hans", "name_zh_hant"
    )


def published_cards(ids: list[int], language: str) -> dict[int, Any]:
    """The cards of the products among `ids` that are still published, by a company in
    good standing (`catalog.hydration`: one statement)."""
    return {
        product_id: product_card(product, thumbnail_url, language)
        for product_id, (product, thumbnail_url) in load_products(ids, language).items()
        if product.status == ProductStatus.PUBLISHED and not product.company.is_suspended
    }


SOURCE = ProductSource(
    load=load_published_products,
    load_range=load_published_product_range,
    forget=forget_loaded_companies,
    id_ranges=published_product_id_ranges,
    of_companies=published_product_ids_of_companies,
    in_categories=published_product_ids_in_categories,
    versions=published_product_versions,
    count=published_product_count,
    categories=category_rows,
    cards=published_cards,
)

"""What the index holds about each product and company, read from the database in bulk.

Both the outbox indexer and `tradepost reindex` read through these functions, so a document
built by either is the same. Reads use `values()` in chunks: no model instances, one query per
table per chunk.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Q

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


def plain_text(value: str) -> str:
    """Text of a description that may hold sanitised HTML."""
    if not value:
        return ""
    if "<" in value or "&" in value:
        return html.unescape(html_to_text(value))
    return value


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


def _company_record(row: dict[str, Any]) -> CompanyRecord:
    return CompanyRecord(
        id=row["id"],
        legal_name=row["legal_name"] or "",
        english_name=row["english_name"] or "",
        country=(row["country"] or "").upper(),
        is_verified=bool(row["is_verified"]),
        business_types=string_list(row["business_types"]),
        main_products=row["main_products"] or "",
        description=plain_text(row["description"] or ""),
        original_language=row["original_language"] or "",
        updated_at=row["updated_at"],
    )


def load_companies(ids: Iterable[int]) -> dict[int, CompanyRecord]:
    """Companies by id (all of them; a company is listed whatever its products' state)."""
    ids = list(set(ids))
    found: dict[int, CompanyRecord] = {}
    for start in range(0, len(ids), 900):
        chunk = ids[start : start + 900]
        for row in Company.objects.filter(id__in=chunk).values(*_COMPANY_COLUMNS):
            found[row["id"]] = _company_record(row)
    return found


def _attach_details(products: dict[int, ProductRecord]) -> None:
    ids = list(products)
    translations = ProductTranslation.objects.filter(product_id__in=ids).values_list(
        "product_id", "language", "title", "description"
    )
    for product_id, language, title, description in translations:
        products[product_id].translations.append(
            (language, title or "", plain_text(description or ""))
        )
    image_counts: dict[int, int] = defaultdict(int)
    for product_id in ProductImage.objects.filter(product_id__in=ids).values_list(
        "product_id", flat=True
    ):
        image_counts[product_id] += 1
    for product_id, count in image_counts.items():
        products[product_id].image_count = count


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
            description=plain_text(row["description"] or ""),
            original_language=row["original_language"] or "",
            keywords=row["keywords"] or "",
            attributes=attribute_texts(row["attributes"]),
            category_id=row["category_id"],
            moq=row["moq"],
            price_min=row["price_min"],
            price_max=row["price_max"],
            currency=(row["currency"] or "").upper(),
            incoterms=[c.upper() for c in string_list(row["incoterms"])],
            lead_time_days=row["lead_time_days"],
            published_at=row["published_at"],
            updated_at=row["updated_at"],
        )
    if records:
        _attach_details(records)
    return records


def load_published_products(ids: Iterable[int]) -> dict[int, ProductRecord]:
    """The published products among `ids`; the others (drafts, hidden, deleted, gone) are
    absent from the result, which tells the indexer to remove them."""
    ids = list(set(ids))
    found: dict[int, ProductRecord] = {}
    for start in range(0, len(ids), 900):
        chunk = ids[start : start + 900]
        rows = list(
            Product.objects.filter(id__in=chunk, status=ProductStatus.PUBLISHED).values(
                *_PRODUCT_COLUMNS
            )
        )
        companies = load_companies(row["company_id"] for row in rows)
        found.update(_product_records(rows, companies))
    return found


def iter_published_products(*, chunk_size: int = 2000) -> Iterator[list[ProductRecord]]:
    """Every published product, in id order, a chunk at a time (keyset pagination)."""
    companies: dict[int, CompanyRecord] = {}
    last_id = 0
    while True:
        rows = list(
            Product.objects.filter(status=ProductStatus.PUBLISHED, id__gt=last_id)
            .order_by("id")
            .values(*_PRODUCT_COLUMNS)[:chunk_size]
        )
        if not rows:
            return
        last_id = rows[-1]["id"]
        missing = {row["company_id"] for row in rows} - companies.keys()
        if missing:
            companies.update(load_companies(missing))
        yield list(_product_records(rows, companies).values())


def published_product_id_ranges(*, chunk_size: int = 2000) -> list[tuple[int, int]]:
    """(first id, last id) of consecutive runs of `chunk_size` published products."""
    ranges: list[tuple[int, int]] = []
    last_id = 0
    while True:
        ids = list(
            Product.objects.filter(status=ProductStatus.PUBLISHED, id__gt=last_id)
            .order_by("id")
            .values_list("id", flat=True)[:chunk_size]
        )
        if not ids:
            return ranges
        ranges.append((ids[0], ids[-1]))
        last_id = ids[-1]


def load_published_product_range(first_id: int, last_id: int) -> list[ProductRecord]:
    rows = list(
        Product.objects.filter(status=ProductStatus.PUBLISHED, id__gte=first_id, id__lte=last_id)
        .order_by("id")
        .values(*_PRODUCT_COLUMNS)
    )
    companies = load_companies(row["company_id"] for row in rows)
    return list(_product_records(rows, companies).values())


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
        yield [_company_record(row) for row in rows]


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

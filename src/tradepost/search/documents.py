"""What the index holds about each product, company and buying request, as records.

The records are the search engine's own shapes; the domain apps read them from their tables
and register how (`search.sources`, docs/adr/0016-search-sources.md): the engine imports no
domain app. The helpers here are what those readers share: plain SQL statements over a chunk
of ids (no QuerySet compilation, no model instances) with each column's value converted the
way Django would convert it, and memos for the JSON columns and descriptions' plain texts,
which repeat across a catalogue. The indexer, `tradepost reindex` and its check read through
the functions at the end, so a document built by any of them is the same.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db import connections, router
from django.db.models import Model

from tradepost.core.html import html_to_text
from tradepost.search import sources

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
        rows = sources.products().categories()
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
    #: The last day the company carries the Gold Supplier badge (membership.badges); None
    #: when it carries none today.
    badge_until: date | None = None


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
    #: The stored machine translations of the title into the interface languages a reader
    #: needs one in (not its own, none the supplier translated it into; docs/adr/0036).
    machine_titles: list[str] = field(default_factory=list)
    image_count: int = 0


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


plain_text_memo = _Memo(plain_text, 20_000)
attribute_texts_memo = _Memo(lambda raw: attribute_texts(_decoded(raw)), 50_000)
string_list_memo = _Memo(lambda raw: string_list(_decoded(raw)), 10_000)


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
RAW_COLUMNS = frozenset({"attributes", "incoterms", "business_types"})
#: Ids per statement when reading by a list of ids (SQLite allows 999 parameters).
IDS_PER_STATEMENT = 900


def id_batches(ids: Iterable[int]) -> Iterator[list[int]]:
    """`ids` without repeats, in ascending order, `IDS_PER_STATEMENT` at a time: the ids of
    one statement each."""
    unique = sorted(set(ids))
    for start in range(0, len(unique), IDS_PER_STATEMENT):
        yield unique[start : start + IDS_PER_STATEMENT]


class Select:
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
            if name in RAW_COLUMNS:
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


def sql_column(model: type[Model], name: str) -> str:
    db = router.db_for_read(model)
    quote = connections[db].ops.quote_name
    column = str(model._meta.get_field(name).column)  # type: ignore[union-attr]
    return f"{quote(model._meta.db_table)}.{quote(column)}"


def sql_in(model: type[Model], name: str, count: int) -> str:
    return f"{sql_column(model, name)} IN ({', '.join(['%s'] * count)})"


# ---------------------------------------------------------------------------------------
# What the indexer and the check read (through the registered sources).


def load_companies(ids: Iterable[int]) -> dict[int, CompanyRecord]:
    """Companies by id, with their response rates as suppliers and their badges."""
    found = sources.companies().load(ids)
    _attach_response_rates(found)
    _attach_badges(found)
    return found


def iter_companies(*, chunk_size: int = 2000) -> Iterator[list[CompanyRecord]]:
    for chunk in sources.companies().chunks(chunk_size):
        by_id = {record.id: record for record in chunk}
        _attach_response_rates(by_id)
        _attach_badges(by_id)
        yield chunk


def _attach_response_rates(companies: dict[int, CompanyRecord]) -> None:
    for chunk in id_batches(companies):
        for company_id, rate in sources.response_rates(chunk).items():
            record = companies.get(company_id)
            if record is not None:
                record.response_rate = rate


def _attach_badges(companies: dict[int, CompanyRecord]) -> None:
    """The last day of each verified company's Gold Supplier badge (only verified companies
    can carry one, so the others are not asked about)."""
    verified = (company_id for company_id, record in companies.items() if record.is_verified)
    for chunk in id_batches(verified):
        for company_id, last_day in sources.badges(chunk).items():
            record = companies.get(company_id)
            if record is not None:
                record.badge_until = last_day


def load_published_products(ids: Iterable[int]) -> dict[int, ProductRecord]:
    """The published products among `ids`; the others (drafts, hidden, deleted, gone) are
    absent from the result, which tells the indexer to remove them."""
    return sources.products().load(ids)


def load_published_product_range(first_id: int, last_id: int) -> list[ProductRecord]:
    """The published products with ids from `first_id` to `last_id` (companies are kept
    between calls in this process: a rebuild reads them once per analysis process)."""
    return sources.products().load_range(first_id, last_id)


def forget_loaded_companies() -> None:
    sources.products().forget()


def published_product_id_ranges(*, chunk_size: int = 2000) -> list[tuple[int, int]]:
    """(first id, last id) of consecutive runs of `chunk_size` published products."""
    return sources.products().id_ranges(chunk_size)


def iter_published_products(*, chunk_size: int = 2000) -> Iterator[list[ProductRecord]]:
    """Every published product, in id order, a chunk at a time."""
    source = sources.products()
    source.forget()
    for first_id, last_id in source.id_ranges(chunk_size):
        yield source.load_range(first_id, last_id)
    source.forget()


def published_product_ids_of_companies(company_ids: Iterable[int]) -> list[int]:
    return sources.products().of_companies(company_ids)


def published_product_ids_in_categories(category_ids: Iterable[int]) -> list[int]:
    """Published products filed under any of the categories or their descendants."""
    return sources.products().in_categories(category_ids)


def load_open_requests(ids: Iterable[int]) -> dict[int, RequestRecord]:
    """The searchable requests among `ids` (open, deadline ahead); the others are absent."""
    return sources.requests().load(ids)


def iter_open_requests(*, chunk_size: int = 2000) -> Iterator[list[RequestRecord]]:
    return sources.requests().chunks(chunk_size)


def open_request_versions() -> Iterator[tuple[int, datetime]]:
    """(id, updated_at) of every searchable request, for `reindex --check`."""
    return sources.requests().versions()


def open_request_ids_of_buyers(company_ids: Iterable[int]) -> list[int]:
    """The open requests of these companies (a suspended buyer's leave the index, and come
    back when the suspension is lifted)."""
    return sources.requests().of_buyers(company_ids)


def open_request_ids_in_categories(category_ids: Iterable[int]) -> list[int]:
    """Searchable requests filed under any of the categories or their descendants (a
    renamed category changes the names their documents hold)."""
    return sources.requests().in_categories(category_ids)

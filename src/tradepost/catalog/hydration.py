"""Loading the page of products a search returns, without the ORM's per-query overhead.

The index answers which 20 products a page shows; the database then gives their current
state. Building those 20 products through the ORM costs 2.1 ms of Python at its leanest
(`only()`, `select_related`, `values_list`: compiling three queries and running
`Model.__init__` for each instance), 3.2 ms as the catalogue pages do it (two prefetches),
against 0.65 ms here, for well under a millisecond of SQL (`tradepost bench hydration`,
docs/adr/0013-result-hydration.md; the tests compare the cards with both ORM readings). Here one
statement (products joined to their company, category, translation and first picture) is
written once per process and run with a plain cursor, and its values go through the
converters Django itself would apply (so dates, decimals and JSON come back the same on
SQLite and PostgreSQL); the model instances are built as `Model.from_db` builds them (without
`Model.__init__` where nothing depends on it), and a product's company and category are
attached the way `select_related` attaches them.

What a product carries afterwards: its company and category (no query on access), and
`viewer_translations` (its translations into the languages the viewer may be shown,
`catalog.selectors.fallback_languages`: theirs, the other Chinese script, English; as
`catalog.selectors.localised_text` expects; a product with two of them comes on two rows).
Its first picture gives the card's thumbnail (the picture rows are read as paths, not model
instances).

Only the columns a result shows are read (`CARD_FIELDS`: the results page, the API's hits,
the supplier matching of buying requests); the rest (a product's attributes and payment
terms, a company's profile) are deferred, as with `QuerySet.only`, and would cost a query
each if read. A third of the time of building a page went to decoding JSON columns no
card shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connections, router
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

from tradepost.catalog.machine_texts import attach_machine_listings
from tradepost.catalog.models import Category, Product, ProductImage, ProductTranslation
from tradepost.catalog.selectors import ProductCard, fallback_languages, localised_text
from tradepost.companies.models import Company
from tradepost.core.countries import country_name

Converter = Callable[[Any, Any, Any], Any]

#: The fields (attribute names) loaded for each model; None: all of them.
CARD_FIELDS: dict[type[Model], tuple[str, ...] | None] = {
    Product: (
        "id",
        "company_id",
        "slug",
        "original_language",
        "title",
        "description",
        "category_id",
        "moq",
        "moq_unit",
        "price_min",
        "price_max",
        "currency",
        "incoterms",
        "port_of_loading",
        "lead_time_days",
        "status",
        "published_at",
    ),
    Company: (
        "id",
        "slug",
        "legal_name",
        "english_name",
        "original_language",
        "country",
        "is_verified",
        "standing",
        # The supplier's reviews, shown on the card ("4.6 ★ (12 reviews)", ADR 0025).
        "review_count",
        "review_rating_sum",
    ),
    Category: (
        "id",
        "slug",
        "parent_id",
        "path",
        "depth",
        "name_en",
        "name_zh_hans",
        "name_zh_hant",
        "is_leaf",
    ),
    ProductTranslation: None,
}


@dataclass(frozen=True)
class _Columns:
    """How to select one model's concrete columns under a table alias and turn the raw
    values back into what the model's fields hold."""

    model: type[Model]
    sql: str
    converters: tuple[tuple[int, tuple[Converter, ...], Any], ...]
    width: int
    #: The attribute names read, in column order (None: every concrete field).
    names: tuple[str, ...] | None
    #: The attribute names to set directly (None: go through `Model.from_db`).
    direct: tuple[str, ...] | None

    def instance(self, row: Sequence[Any], start: int, db: str, connection: Any) -> Any:
        values = list(row[start : start + self.width])
        for index, converters, expression in self.converters:
            value = values[index]
            for converter in converters:
                value = converter(value, expression, connection)
            values[index] = value
        if self.direct is None:
            return self.model.from_db(db, self.names, values)  # type: ignore[arg-type]
        # What `from_db` ends with, without `Model.__init__` (a tenth of the time): the
        # loaded values in the instance's dict, the fields left out deferred, and the
        # state of a row read from `db`.
        instance = self.model.__new__(self.model)
        instance.__dict__.update(zip(self.direct, values, strict=True))
        state = instance._state = ModelState()
        state.adding = False
        state.db = db
        return instance


def _columns(model: type[Model], alias: str, db: str) -> _Columns:
    connection = connections[db]
    quote = connection.ops.quote_name
    wanted = CARD_FIELDS.get(model)
    fields = [f for f in model._meta.concrete_fields if wanted is None or f.attname in wanted]
    converters = []
    for index, model_field in enumerate(fields):
        expression = model_field.get_col(alias)
        found = tuple(
            connection.ops.get_db_converters(expression) + model_field.get_db_converters(connection)
        )
        if found:
            converters.append((index, found, expression))
    sql = ", ".join(f"{quote(alias)}.{quote(str(f.column))}" for f in fields)
    names = None if wanted is None else tuple(f.attname for f in fields)
    return _Columns(
        model=model,
        sql=sql,
        converters=tuple(converters),
        width=len(fields),
        names=names,
        direct=tuple(f.attname for f in fields) if _plain_init(model) else None,
    )


def _plain_init(model: type[Model]) -> bool:
    """Whether `Model.__init__` only sets the field values for `model`: no custom
    `__init__` and nothing listening to its init signals (an ImageField with dimension
    fields listens, to fill them in)."""
    return (
        model.__init__ is Model.__init__
        and not pre_init.has_listeners(model)
        and not post_init.has_listeners(model)
    )


@dataclass(frozen=True)
class _Statement:
    product: _Columns
    company: _Columns
    category: _Columns
    translation: _Columns
    #: With `{languages}` and `{ids}` for the placeholders of the languages, then the ids.
    sql: str


@cache
def _statement(db: str, vendor: str) -> _Statement:
    """The statement that loads a page of products for database `db`: each product with its
    company, its category, its first picture (thumbnail and image) and one of its
    translations into the languages a viewer may be shown: one row per translation found, one
    row for a product with none."""
    quote = connections[db].ops.quote_name
    product = _columns(Product, "p", db)
    company = _columns(Company, "c", db)
    category = _columns(Category, "k", db)
    translation = _columns(ProductTranslation, "t", db)

    def table(model: type[Model]) -> str:
        return quote(model._meta.db_table)

    pictures = table(ProductImage)
    # The product's first picture that has a file: one correlated lookup, then its row.
    first_picture = (
        f"SELECT f.{quote('id')} FROM {pictures} f "  # noqa: S608
        f"WHERE f.{quote('product_id')} = p.{quote('id')} "
        f"AND (f.{quote('thumbnail')} <> '' OR f.{quote('image')} <> '') "
        f"ORDER BY f.{quote('position')}, f.{quote('id')} LIMIT 1"
    )
    # Only identifiers from the models' metadata are interpolated; values are parameters.
    sql = (
        f"SELECT {product.sql}, {company.sql}, {category.sql}, {translation.sql}, "  # noqa: S608
        f"i.{quote('thumbnail')}, i.{quote('image')} FROM {table(Product)} p "
        f"INNER JOIN {table(Company)} c ON c.{quote('id')} = p.{quote('company_id')} "
        f"INNER JOIN {table(Category)} k ON k.{quote('id')} = p.{quote('category_id')} "
        f"LEFT OUTER JOIN {table(ProductTranslation)} t "
        f"ON t.{quote('product_id')} = p.{quote('id')} "
        f"AND t.{quote('language')} IN ({{languages}}) "
        f"LEFT OUTER JOIN {pictures} i ON i.{quote('id')} = ({first_picture}) "
        f"WHERE p.{quote('id')} IN ({{ids}})"
    )
    return _Statement(
        product=product, company=company, category=category, translation=translation, sql=sql
    )


@cache
def _relation_fields() -> tuple[Any, Any, Any]:
    return (
        Product._meta.get_field("company"),
        Product._meta.get_field("category"),
        ProductTranslation._meta.get_field("product"),
    )


def load_products(ids: Sequence[int], language: str) -> dict[int, tuple[Product, str]]:
    """{id: (product, thumbnail url)} for the products among `ids` that exist (in any
    status; the caller decides what to show). One query whatever the number of ids."""
    if not ids:
        return {}
    db = router.db_for_read(Product)
    connection = connections[db]
    statement = _statement(db, connection.vendor)
    company_field, category_field, translation_product = _relation_fields()
    languages = fallback_languages(language)
    sql = statement.sql.format(
        languages=", ".join(["%s"] * len(languages)), ids=", ".join(["%s"] * len(ids))
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*languages, *(int(i) for i in ids)])
        rows = cursor.fetchall()
    company_start = statement.product.width
    category_start = company_start + statement.company.width
    translation_start = category_start + statement.category.width
    picture_start = translation_start + statement.translation.width
    loaded: dict[int, tuple[Product, str]] = {}
    companies: dict[int, Company] = {}
    categories: dict[int, Category] = {}
    for row in rows:
        seen = loaded.get(row[0])  # the product's id comes first
        if seen is not None:  # the same product on a further row: one more translation
            if row[translation_start] is not None:
                found = statement.translation.instance(row, translation_start, db, connection)
                translation_product.set_cached_value(found, seen[0])
                seen[0].viewer_translations.append(found)  # type: ignore[attr-defined]
            continue
        product = statement.product.instance(row, 0, db, connection)
        company = companies.get(row[company_start])
        if company is None:
            company = statement.company.instance(row, company_start, db, connection)
            companies[company.pk] = company
        category = categories.get(row[category_start])
        if category is None:
            category = statement.category.instance(row, category_start, db, connection)
            categories[category.pk] = category
        company_field.set_cached_value(product, company)
        category_field.set_cached_value(product, category)
        product.viewer_translations = []  # type: ignore[attr-defined]
        if row[translation_start] is not None:
            found = statement.translation.instance(row, translation_start, db, connection)
            translation_product.set_cached_value(found, product)
            product.viewer_translations.append(found)  # type: ignore[attr-defined]
        thumbnail, picture = row[picture_start], row[picture_start + 1]
        url = _image_url(thumbnail, picture) if thumbnail or picture else ""
        loaded[product.pk] = (product, url)
    attach_machine_listings((product for product, _url in loaded.values()), language, whole=False)
    return loaded


@cache
def _storages() -> tuple[Any, Any]:
    return (
        ProductImage._meta.get_field("thumbnail").storage,  # type: ignore[attr-defined]
        ProductImage._meta.get_field("image").storage,  # type: ignore[attr-defined]
    )


def _image_url(thumbnail: str, picture: str) -> str:
    """What `catalog.selectors` shows for a product's picture: the thumbnail, else the
    picture itself."""
    thumbnail_storage, picture_storage = _storages()
    if thumbnail:
        return str(thumbnail_storage.url(thumbnail))
    return str(picture_storage.url(picture))


def product_card(product: Product, thumbnail_url: str, language: str) -> ProductCard:
    """The card `catalog.selectors.product_cards` would build, from a loaded product."""
    company = product.company
    return ProductCard(
        product=product,
        text=localised_text(product, language),
        thumbnail_url=thumbnail_url,
        company_name=company.name_for(language),
        company_country=country_name(company.country, language),
        category_name=product.category.name_for(language),
    )

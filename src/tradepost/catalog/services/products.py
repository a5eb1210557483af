"""Writes on a supplier's products: create (one, or many at once for the catalogue import),
change, check without writing, delete; the listings re-queued when exchange rates change."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Unpack

from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.catalog.duplicate_listings import fingerprints_forget
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import Category, Product, ProductStatus, ProductTranslation
from tradepost.catalog.services._common import (
    _changed,
    _ensure_can_manage,
    _full_clean,
    _hold_if_terms_added,
    _locked_to_manage,
    _screened_if_public,
)
from tradepost.catalog.services.fields import (
    _DECIMAL_FIELDS,
    ProductFields,
    _category_id,
    _check_product,
    _clean_fields,
    _with_sku,
)
from tradepost.catalog.services.translations import product_translation_check
from tradepost.catalog.tasks import translate_products
from tradepost.companies.models import Company
from tradepost.core.queueing import enqueue_on_commit
from tradepost.search.outbox import OutboxKind, record_changes

SLUG_MAX_LENGTH = 80


def _slug_for(title: str) -> str:
    slug = slugify(title)[:SLUG_MAX_LENGTH].strip("-")
    return slug or "product"


def _apply(product: Product, clean: Mapping[str, Any]) -> None:
    for name, value in clean.items():
        setattr(product, name, value)


@transaction.atomic
def product_create(*, actor: User, company: Company, **fields: Unpack[ProductFields]) -> Product:
    """Create a draft product of `company`."""
    _ensure_can_manage(actor, company)
    clean = _clean_fields(fields, creating=True)
    product = Product(company=company, status=ProductStatus.DRAFT)
    _apply(product, clean)
    product.slug = _slug_for(product.title)
    _check_product(product)
    product.save()
    _changed(product)
    return product


def _plain(name: str, value: Any) -> Any:
    """A checked value as JSON holds it: the category by its id, a number as text."""
    if name == "category":
        return value.pk
    return str(value) if isinstance(value, Decimal) else value


class CheckedDraft:
    """A new product's fields as `product_draft_check` cleaned and checked them: the unsaved
    product and the values it holds, by model field. `products_create_many` takes it in place
    of the fields and does not clean them again (the catalogue import plans a chunk just
    before writing it: its rows are cleaned once, ADR 0027). Its translations checked by
    `translation_check` are not checked again either. Used once."""

    __slots__ = ("_product", "_translations", "values")

    def __init__(self, product: Product, values: dict[str, Any]) -> None:
        self._product: Product | None = product
        self._translations: dict[str, tuple[str, str, str]] = {}
        self.values = values

    def translation_check(
        self, *, language: Any, title: Any, description: Any = ""
    ) -> tuple[str, str, str]:
        """`product_translation_check` of a translation of the draft, remembered: the batch
        writes the same translation without cleaning it again."""
        assert self._product is not None, "checked before it is written"
        checked = product_translation_check(
            product=self._product, language=language, title=title, description=description
        )
        if isinstance(language, str):
            self._translations[language] = checked
        return checked

    def checked_translation(
        self, language: str, title: str, description: str
    ) -> tuple[str, str, str] | None:
        """What `translation_check` answered for `language`, when it answered (title,
        description): the translation as checked; else None (to be checked)."""
        found = self._translations.get(language)
        return found if found is not None and found[1:] == (title, description) else None

    def dump(self) -> dict[str, Any]:
        """The draft as JSON-ready data (`load` makes the draft again): its values, a
        category by its id, numbers as text, and its checked translations."""
        values = {name: _plain(name, value) for name, value in self.values.items()}
        return {"values": values, "translations": self._translations}

    @classmethod
    def load(
        cls, company: Company, data: Mapping[str, Any], categories: Mapping[int, Category]
    ) -> CheckedDraft | None:
        """The draft `dump` wrote, checked earlier, for `company`; None when it may no longer
        be written as it was checked: its category is gone or has sub-categories now
        (`categories`: the categories by id, as they are now)."""
        values = dict(data["values"])
        category = categories.get(values.get("category") or 0)
        if category is None or not category.is_leaf:
            return None
        values["category"] = category
        for name in _DECIMAL_FIELDS & values.keys():
            if values[name] is not None:
                values[name] = Decimal(values[name])
        draft = cls(_draft_of(company, values), values)
        draft._translations = {
            language: (code, title, description)
            for language, (code, title, description) in data["translations"].items()
        }
        return draft

    def take(self, company: Company) -> Product:
        """The checked product, for `company`'s batch; a draft is written once."""
        product = self._product
        if product is None or product.pk is not None or product.company_id != company.pk:
            raise TypeError("a checked draft is written once, for the company it was checked for")
        self._product = None
        return product


#: A draft for `products_create_many`: the fields of `product_create` (or a `CheckedDraft`)
#: and the translations of `product_translation_set`, by language: (title, description).
ProductDraft = tuple[Mapping[str, Any] | CheckedDraft, Mapping[str, tuple[str, str]]]


def products_create_many(
    *, actor: User, company: Company, drafts: Sequence[ProductDraft]
) -> list[Product | ProductError]:
    """Create draft products of `company`, each with its translations, as `product_create`
    then `product_translation_set` would (the same cleaners and rules, the same rows and
    search-index outbox), but in bulk: a few statements whatever the number of drafts (the
    catalogue import's batches, ADR 0027). Answers, in the drafts' order, each product
    created or the `ProductError` that refused it (nothing of it is written). Runs in the
    caller's transaction; the database's constraints (a SKU taken meanwhile) raise
    `IntegrityError`, and nothing of the batch is written then."""
    _ensure_can_manage(actor, company)
    categories = _categories_of(drafts)
    results: list[Product | ProductError] = []
    created: list[tuple[Product, list[ProductTranslation]]] = []
    for fields, translations in drafts:
        try:
            product, rows = _draft_checked(company, fields, translations, categories)
        except ProductError as refusal:
            results.append(refusal)
            continue
        results.append(product)
        created.append((product, rows))
    taken = _skus_taken(company, [product.sku for product, _rows in created if product.sku])
    for position, result in enumerate(results):
        if not isinstance(result, Product) or not result.sku:
            continue
        if result.sku in taken:
            results[position] = ProductError(
                ProductErrorCode.INVALID, {"sku": [_("Another of your products has this SKU.")]}
            )
        taken.add(result.sku)
    accepted = {id(result) for result in results if isinstance(result, Product)}
    kept = [(product, rows) for product, rows in created if id(product) in accepted]
    with transaction.atomic():
        products = Product.objects.bulk_create([product for product, _rows in kept])
        # Each translation row holds its product, which has its id now.
        ProductTranslation.objects.bulk_create([row for _product, rows in kept for row in rows])
        record_changes(kind=OutboxKind.PRODUCT, object_ids=[product.pk for product in products])
        fingerprints_forget(products)
        published = [p.pk for p in products if p.status == ProductStatus.PUBLISHED]
        if published:
            enqueue_on_commit(translate_products, published)
    return results


def _categories_of(drafts: Sequence[ProductDraft]) -> dict[int, Category]:
    """The categories the drafts name by id, in one query (the cleaner takes them so)."""
    ids = {
        _category_id(fields.get("category_id"))
        for fields, _translations in drafts
        if not isinstance(fields, CheckedDraft)
    }
    return Category.objects.in_bulk(ids - {0}) if ids - {0} else {}


def _draft_checked(
    company: Company,
    fields: Mapping[str, Any] | CheckedDraft,
    translations: Mapping[str, tuple[str, str]],
    categories: Mapping[int, Category],
) -> tuple[Product, list[ProductTranslation]]:
    """One draft checked as `product_create` and `product_translation_set` check it, but for
    the SKU's uniqueness (`_skus_taken`, in bulk); unsaved. A `CheckedDraft`'s fields were
    checked so already (`product_draft_check`): only its translations are."""
    checked = fields if isinstance(fields, CheckedDraft) else None
    if isinstance(fields, CheckedDraft):
        product = fields.take(company)
        product.slug = _slug_for(product.title)
    else:
        raw = dict(fields)
        category = categories.get(_category_id(raw.get("category_id")))
        if category is not None:
            raw["category_id"] = category
        product = _draft_of(company, _clean_fields(raw, creating=True))
        product.slug = _slug_for(product.title)
        _check_product(product, database=False)
    rows = []
    for language, (title, description) in translations.items():
        known = checked.checked_translation(language, title, description) if checked else None
        code, clean_title, clean_description = known or product_translation_check(
            product=product, language=language, title=title, description=description
        )
        row = ProductTranslation(
            product=product, language=code, title=clean_title, description=clean_description
        )
        _full_clean(row, exclude=["product"], validate_constraints=False)
        rows.append(row)
    return product, rows


def _skus_taken(company: Company, skus: list[str]) -> set[str]:
    """Which of `skus` the company's products (deleted ones aside) have already."""
    if not skus:
        return set()
    return set(_with_sku(company.pk, skus).values_list("sku", flat=True))


@transaction.atomic
def product_update(*, actor: User, product: Product, **fields: Unpack[ProductFields]) -> Product:
    """Change the given fields of a product; its status stays as it is (but a published
    listing the change brings a banned term into is held for review, ADR 0023)."""
    locked = _locked_to_manage(actor, product)
    clean = _clean_fields(fields, creating=False)
    screened_before = _screened_if_public(locked)
    _apply(locked, clean)
    if locked.published_at is None and "title" in clean:
        # The slug is fixed once the product has been published, so its links keep working.
        locked.slug = _slug_for(locked.title)
    _check_product(locked)
    locked.save()
    _changed(locked)
    return _hold_if_terms_added(actor, locked, screened_before)


def product_check(
    *, company: Company, product: Product | None = None, **fields: Unpack[ProductFields]
) -> dict[str, Any]:
    """Check `fields` as `product_create` (without `product`) or `product_update` (of
    `product`) checks them, and answer the values they would store, by model field; nothing
    is written and nobody's permission is asked (the catalogue import's preview, ADR 0027).
    Raises `ProductError` as they do. The checks that need the database (the SKU's
    uniqueness, the references) are left to the write."""
    if product is None:
        return product_draft_check(company=company, **fields).values
    clean = _clean_fields(fields, creating=False)
    candidate = copy.copy(product)
    _apply(candidate, clean)
    _check_product(candidate, database=False)
    return clean


def product_draft_check(*, company: Company, **fields: Unpack[ProductFields]) -> CheckedDraft:
    """`product_check` of a new product, answering the checked product too: what
    `products_create_many` writes without cleaning it again. Raises `ProductError` as
    `product_create` does; nothing is written."""
    clean = _clean_fields(fields, creating=True)
    candidate = _draft_of(company, clean)
    _check_product(candidate, database=False)
    return CheckedDraft(candidate, clean)


def _draft_of(company: Company, clean: Mapping[str, Any]) -> Product:
    product = Product(company=company, status=ProductStatus.DRAFT)
    _apply(product, clean)
    return product


@transaction.atomic
def product_delete(*, actor: User, product: Product) -> Product:
    """Delete a product: it leaves the dashboard and the catalogue (the row is kept)."""
    locked = _locked_to_manage(actor, product)
    locked.status = ProductStatus.DELETED
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    return locked


def listings_reprice(*, currencies: list[str], **_signal: Any) -> int:
    """Queue the published listings priced in `currencies` for the search index, whose dollar
    prices (filters, buckets, sorts) follow the exchange-rate table. Connected to
    `tradepost.money.services.rates_changed`; runs in the rate change's transaction."""
    ids = list(
        Product.objects.filter(currency__in=currencies, status=ProductStatus.PUBLISHED)
        .order_by()
        .values_list("pk", flat=True)
    )
    record_changes(kind=OutboxKind.PRODUCT, object_ids=ids)
    return len(ids)

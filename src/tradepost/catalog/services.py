"""Writes on a supplier's products: one function per use case, one transaction each.

Every function takes keyword arguments only, checks that the actor may manage the product's
company, validates everything before writing anything, and raises `ProductError` (a
`core.errors.DomainError` with messages per field) when refused: nothing is saved then.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator, require_operator, user_can_publish
from tradepost.audit.services import audit_record
from tradepost.catalog.duplicates import (
    fingerprint_sync,
    fingerprints_forget,
    refuse_likely_duplicates,
)
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.hs_codes import hs_code_error, normalise_hs_code
from tradepost.catalog.models import (
    Category,
    PaymentTerm,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
    Unit,
)
from tradepost.catalog.screening import screen_listing
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company
from tradepost.companies.selectors import standing_refusal
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_choice,
    clean_choices,
    clean_country,
    clean_currency,
    clean_lead_time_days,
    clean_listing_language,
    clean_number,
    clean_rich_text,
    clean_text,
    one_line,
    text_or_none,
)
from tradepost.core.events import EventType, emit
from tradepost.core.images import ImageRejected, process_image
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import UI_LANGUAGES
from tradepost.screening.selectors import Verdict
from tradepost.screening.services import tell_listing_review
from tradepost.search.outbox import OutboxKind, record_change, record_changes

TITLE_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 20_000
KEYWORDS_MAX_LENGTH = 300
PORT_MAX_LENGTH = 100
ATTRIBUTES_MAX_COUNT = 30
ATTRIBUTE_NAME_MAX_LENGTH = 100
ATTRIBUTE_VALUE_MAX_LENGTH = 300
SLUG_MAX_LENGTH = 80
SKU_MAX_LENGTH = 64


class ProductFields(TypedDict, total=False):
    """What a supplier writes about a product. Absent keys are left as they are on update."""

    title: str
    description: str
    category_id: int | None
    keywords: str
    attributes: list[dict[str, str]] | list[tuple[str, str]]
    moq: Decimal | int | str | None
    moq_unit: str
    price_min: Decimal | int | str | None
    price_max: Decimal | int | str | None
    currency: str
    incoterms: list[str]
    port_of_loading: str
    payment_terms: list[str]
    lead_time_days: int | str | None
    supply_capacity: Decimal | int | str | None
    supply_capacity_unit: str
    hs_code: str
    origin_country: str
    original_language: str
    sku: str


PRODUCT_FIELDS = frozenset(ProductFields.__annotations__)
REQUIRED_FIELDS = ("title", "category_id", "moq", "moq_unit")
#: What publishing takes besides the product: the supplier's confirmation that a listing much
#: like one the company has published is meant (`product_publish`).
PUBLISH_FIELDS = frozenset({"allow_duplicate"})


# --- validation ------------------------------------------------------------------------------


def _clean_attributes(value: Any) -> list[dict[str, str]]:
    """Rows of a name and a value, from a list of mappings or of pairs; empty rows dropped."""
    if value is None or value == "":
        return []
    if not isinstance(value, list | tuple):
        raise FieldInvalid(_("Give attributes as a list of names and values."))
    rows: list[dict[str, str]] = []
    problems: list[str] = []
    for number, item in enumerate(value, start=1):
        if isinstance(item, Mapping):
            name, val = item.get("name"), item.get("value")
        elif isinstance(item, list | tuple) and len(item) == 2:
            name, val = item
        else:
            raise FieldInvalid(_("Give attributes as a list of names and values."))
        name_text, value_text = text_or_none(name), text_or_none(val)
        if name_text is None or value_text is None:
            problems.append(_("Attribute %(number)d: enter text.") % {"number": number})
            continue
        name_text, value_text = one_line(name_text), one_line(value_text)
        if not name_text and not value_text:
            continue
        problems.extend(_attribute_problems(number, name_text, value_text))
        rows.append({"name": name_text, "value": value_text})
    if len(rows) > ATTRIBUTES_MAX_COUNT:
        problems.append(
            _("Add at most %(limit)d attributes; there are %(count)d.")
            % {"limit": ATTRIBUTES_MAX_COUNT, "count": len(rows)}
        )
    if problems:
        raise FieldInvalid(*problems)
    return rows


def _attribute_problems(number: int, name: str, value: str) -> list[str]:
    problems = []
    if not name:
        problems.append(_("Attribute %(number)d has a value but no name.") % {"number": number})
    elif len(name) > ATTRIBUTE_NAME_MAX_LENGTH:
        problems.append(
            _("Attribute %(number)d: use at most %(limit)d characters for the name.")
            % {"number": number, "limit": ATTRIBUTE_NAME_MAX_LENGTH}
        )
    if len(value) > ATTRIBUTE_VALUE_MAX_LENGTH:
        problems.append(
            _("Attribute %(number)d: use at most %(limit)d characters for the value.")
            % {"number": number, "limit": ATTRIBUTE_VALUE_MAX_LENGTH}
        )
    return problems


def _category_id(value: Any) -> int:
    """A positive database id from an int or a string of digits; 0 for anything else."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 0 < value < 2**63 else 0


def clean_leaf_category(value: Any) -> Category:
    """The category a listing or a buying request is filed under, by id: one of the tree's
    leaves. A field cleaner (`core.cleaning`), shared with the buying requests."""
    if value is None or value == "":
        raise FieldInvalid(_("Choose a category."))
    if isinstance(value, Category):
        category: Category | None = value
    else:
        pk = _category_id(value)
        category = Category.objects.filter(pk=pk).first() if pk else None
    if category is None:
        raise FieldInvalid(_("Choose a category from the list."))
    if not category.is_leaf:
        raise FieldInvalid(_("Choose the most specific category, one without sub-categories."))
    return category


def _clean_hs_code(value: Any) -> str:
    text = text_or_none(value)
    if text is None:
        raise FieldInvalid(_("Enter text."))
    code = normalise_hs_code(text) if text else ""
    message = hs_code_error(code) if code else None
    if message:
        raise FieldInvalid(message)
    return code


_DESCRIPTION: dict[str, Any] = {
    "max_length": DESCRIPTION_MAX_LENGTH,
    # A very long input is refused before it is parsed.
    "max_input_length": DESCRIPTION_MAX_LENGTH * 5,
}
_TITLE: dict[str, Any] = {"max_length": TITLE_MAX_LENGTH, "required": True}
_UNIT_MESSAGE = gettext_lazy("Choose a unit from the list.")

#: How each input field is cleaned: the model field it sets, the cleaner and its options.
_FIELD_CLEANERS: dict[str, tuple[str, Callable[..., Any], dict[str, Any]]] = {
    "title": ("title", clean_text, _TITLE),
    "description": ("description", clean_rich_text, _DESCRIPTION),
    "category_id": ("category", clean_leaf_category, {}),
    "keywords": ("keywords", clean_text, {"max_length": KEYWORDS_MAX_LENGTH}),
    "port_of_loading": ("port_of_loading", clean_text, {"max_length": PORT_MAX_LENGTH}),
    "attributes": ("attributes", _clean_attributes, {}),
    "moq": ("moq", clean_number, {"required": True}),
    "price_min": ("price_min", clean_number, {"positive": False}),
    "price_max": ("price_max", clean_number, {"positive": False}),
    "supply_capacity": ("supply_capacity", clean_number, {"positive": False}),
    "moq_unit": (
        "moq_unit",
        clean_choice,
        {"allowed": Unit.values, "required": True, "message": _UNIT_MESSAGE},
    ),
    "supply_capacity_unit": (
        "supply_capacity_unit",
        clean_choice,
        {"allowed": Unit.values, "message": _UNIT_MESSAGE},
    ),
    "currency": ("currency", clean_currency, {"required": True}),
    "incoterms": (
        "incoterms",
        clean_choices,
        {
            "allowed": Incoterm.values,
            "message": gettext_lazy("Choose Incoterms from the list."),
            "canonical_order": True,
        },
    ),
    "payment_terms": (
        "payment_terms",
        clean_choices,
        {
            "allowed": PaymentTerm.values,
            "message": gettext_lazy("Choose payment terms from the list."),
            "canonical_order": True,
        },
    ),
    "lead_time_days": ("lead_time_days", clean_lead_time_days, {}),
    "hs_code": ("hs_code", _clean_hs_code, {}),
    "origin_country": ("origin_country", clean_country, {"required": False}),
    "original_language": ("original_language", clean_listing_language, {}),
    "sku": ("sku", clean_text, {"max_length": SKU_MAX_LENGTH}),
}


def _clean_fields(data: Mapping[str, Any], *, creating: bool) -> dict[str, Any]:
    """Validate and normalise the given fields; raise ProductError listing every problem."""
    unknown = set(data) - PRODUCT_FIELDS
    if unknown:
        raise TypeError(f"unknown product fields: {', '.join(sorted(unknown))}")
    errors = FieldErrors()
    clean: dict[str, Any] = {}
    if creating:
        for name in REQUIRED_FIELDS:
            if name not in data:
                errors.add(name, _("This field is required."))
    for name, value in data.items():
        target, cleaner, options = _FIELD_CLEANERS[name]
        clean[target] = errors.clean(name, cleaner, value, **options)
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    return clean


def _check_product(product: Product, *, database: bool = True) -> None:
    """Rules across fields, then the model's own validation; without `database`, the SKU's
    uniqueness, the references and the model's constraints are left to the write."""
    errors = FieldErrors()
    if (
        product.price_min is not None
        and product.price_max is not None
        and product.price_min > product.price_max
    ):
        errors.add("price_max", _("The highest price must not be lower than the lowest price."))
    if product.supply_capacity is not None and not product.supply_capacity_unit:
        errors.add("supply_capacity_unit", _("Choose the unit of the supply capacity."))
    if (
        product.pk
        and product.original_language in UI_LANGUAGES
        and _has_translation(product, product.original_language)
    ):
        errors.add(
            "original_language", _("There is a translation in this language; remove it first.")
        )
    if database and product.sku and _sku_taken(product):
        errors.add("sku", _("Another of your products has this SKU."))
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    if database:
        # The SKU's constraint was checked above, by field.
        _full_clean(product, exclude=sorted(_CLEANER_COVERED))
    else:
        # Uniqueness needs the database too: left to the write with the constraints.
        _full_clean(
            product,
            exclude=sorted(_CLEANER_COVERED | {"company"}),
            validate_unique=False,
            validate_constraints=False,
        )


def _has_translation(product: Product, language: str) -> bool:
    """Whether the product has a translation in `language`: from its translations when they
    were prefetched (the catalogue import plans hundreds of products at once), else one query."""
    return any(row.language == language for row in product.translations.all())


def _sku_taken(product: Product) -> bool:
    """Whether another of the company's products (deleted ones aside) has the product's SKU."""
    return _with_sku(product.company_id, [product.sku]).exclude(pk=product.pk).exists()


def _with_sku(company_id: int, skus: Sequence[str]) -> QuerySet[Product]:
    """The company's products (deleted ones aside) with one of `skus`, unordered. Written
    as the SKU's unique index is (`product_sku_unique_per_company`: no empty SKU, no deleted
    product), so that the database searches that index instead of reading every product of
    the company (a catalogue import asks this of each chunk of 500 rows)."""
    return (
        Product.objects.filter(company_id=company_id, sku__in=skus)
        .exclude(sku="")
        .exclude(status=ProductStatus.DELETED)
        .order_by()
    )


_MODEL_TO_INPUT = {"category": "category_id"}
#: The numbers among the model fields the input sets (`clean_number`).
_DECIMAL_FIELDS = frozenset(
    target for target, cleaner, _options in _FIELD_CLEANERS.values() if cleaner is clean_number
)
#: The model fields whose cleaner (`_FIELD_CLEANERS`) refuses every value the model's own
#: validation would refuse (tests/catalog/test_cleaners_cover_model.py feeds both the same
#: values): the model does not check them again (`_check_product`). The numbers are not among
#: them: their digits and decimal places are the model's to check. The SKU's uniqueness is
#: `_check_product`'s (with the database) or the write's.
_CLEANER_COVERED = (
    frozenset(target for target, _cleaner, _options in _FIELD_CLEANERS.values()) - _DECIMAL_FIELDS
)


def _full_clean(obj: Any, **options: Any) -> None:
    ProductError.clean_model(obj, code=ProductErrorCode.INVALID, rename=_MODEL_TO_INPUT, **options)


def _slug_for(title: str) -> str:
    slug = slugify(title)[:SLUG_MAX_LENGTH].strip("-")
    return slug or "product"


def _ensure_can_manage(actor: User, company: Company) -> None:
    if not actor_for(actor).works_for(company):
        raise ProductError(
            ProductErrorCode.NOT_ALLOWED, _("You may not manage this company's products.")
        )


def _locked(product: Product) -> Product:
    """A fresh copy of the product, row-locked for this transaction; deleted ones are gone."""
    locked = (
        Product.objects.select_for_update()
        .select_related("company", "category")
        .filter(pk=product.pk)
        .exclude(status=ProductStatus.DELETED)
        .first()
    )
    if locked is None:
        raise ProductNotFound()
    return locked


def _locked_to_manage(actor: User, product: Product) -> Product:
    """The product row-locked (`_locked`), once the actor may manage its company's products."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    return locked


def _emit_published(product: Product) -> None:
    """Tell the company's webhooks that a listing went public (docs/webhooks.md), in the
    transaction that publishes it."""
    emit(
        EventType.PRODUCT_PUBLISHED,
        company_id=product.company_id,
        payload={
            "product": {
                "id": product.pk,
                "sku": product.sku,
                "title": product.title,
                "published_at": product.published_at,
            }
        },
    )


def _changed(product: Product) -> None:
    """Tell the search index, in this transaction, that the product changed (and keep its
    duplicate-detection fingerprint in step: only published products have one)."""
    record_change(kind=OutboxKind.PRODUCT, object_id=product.pk)
    fingerprint_sync(product)


def _apply(product: Product, clean: Mapping[str, Any]) -> None:
    for name, value in clean.items():
        setattr(product, name, value)


# --- products --------------------------------------------------------------------------------


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
def product_publish(*, actor: User, product: Product, allow_duplicate: bool = False) -> Product:
    """Show a product in the public catalogue. Refused (`LIKELY_DUPLICATE`, naming them)
    while the company has published listings much like it, unless `allow_duplicate`."""
    locked = _locked_to_manage(actor, product)
    if locked.status == ProductStatus.HIDDEN and not is_operator(actor):
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION,
            _("This product was hidden by moderation and cannot be published."),
        )
    suspended = standing_refusal(locked.company)
    if suspended:
        raise ProductError(ProductErrorCode.COMPANY_SUSPENDED, suspended)
    if not user_can_publish(actor):
        raise ProductError(
            ProductErrorCode.EMAIL_NOT_VERIFIED,
            _("Confirm your email address before publishing products."),
        )
    errors = FieldErrors()
    if not locked.title.strip():
        errors.add("title", _("Give the product a title before publishing it."))
    if not locked.category.is_leaf:
        errors.add(
            "category_id",
            _("Choose the most specific category, one without sub-categories."),
        )
    if locked.moq is None or locked.moq <= 0:
        errors.add("moq", _("Enter a minimum order quantity greater than zero."))
    errors.raise_if_any(ProductError, ProductErrorCode.NOT_PUBLISHABLE)
    if locked.status == ProductStatus.PUBLISHED:
        return locked
    if allow_duplicate is not True:
        refuse_likely_duplicates(locked)  # near-duplicates within the company (ADR 0024)
    screening_verdict = screen_listing(locked)  # banned terms hold it for review (ADR 0023)
    if screening_verdict.held:
        return _hold_for_review(actor, locked, screening_verdict)
    locked.status = ProductStatus.PUBLISHED
    if locked.published_at is None:
        locked.published_at = timezone.now()
    _full_clean(locked)
    locked.save(update_fields=["status", "published_at", "updated_at"])
    _changed(locked)
    _emit_published(locked)
    return locked


@transaction.atomic
def product_unpublish(*, actor: User, product: Product) -> Product:
    """Take a published product back to draft (or one held for review: withdrawn)."""
    locked = _locked_to_manage(actor, product)
    if locked.status == ProductStatus.HIDDEN:
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION, _("This product was hidden by moderation.")
        )
    if locked.status in (ProductStatus.PUBLISHED, ProductStatus.HELD):
        locked.status = ProductStatus.DRAFT
        locked.save(update_fields=["status", "updated_at"])
        _changed(locked)
    return locked


@transaction.atomic
def product_delete(*, actor: User, product: Product) -> Product:
    """Delete a product: it leaves the dashboard and the catalogue (the row is kept)."""
    locked = _locked_to_manage(actor, product)
    locked.status = ProductStatus.DELETED
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    return locked


# --- moderation ------------------------------------------------------------------------------


def _moderate(
    actor: User, product: Product, *, status: str, action: str, only_from: str | None = None
) -> Product:
    """The product locked and given `status` by an operator, with its audit entry
    (`product.<action>`); nothing is written when it has that status already, or (with
    `only_from`) when it is in another status than that one."""
    locked = _locked(product)
    if locked.status == status or (only_from is not None and locked.status != only_from):
        return locked
    changes = {"status": [locked.status, status]}
    audit_record(actor=actor, action=f"product.{action}", target=locked, changes=changes)
    locked.status = status
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    return locked


@transaction.atomic
def product_hide(*, actor: User, product: Product) -> Product:
    """Hide a listing from the catalogue by moderation; the supplier cannot publish it again."""
    require_operator(actor)
    return _moderate(actor, product, status=ProductStatus.HIDDEN, action="hide")


@transaction.atomic
def product_restore(*, actor: User, product: Product) -> Product:
    """Lift a moderation hide: the listing goes back to draft for the supplier to publish."""
    require_operator(actor)
    return _moderate(
        actor,
        product,
        status=ProductStatus.DRAFT,
        action="restore",
        only_from=ProductStatus.HIDDEN,
    )


# --- held for review (banned terms, docs/adr/0023-banned-terms.md) ---------------------------

REVIEW_REASON_MAX_LENGTH = 1000


def _hold_for_review(actor: User, locked: Product, verdict: Verdict) -> Product:
    """Hold a listing that is being published, and whose texts hold banned terms, for an
    operator's review: not public, not in search. The company is told (not which term);
    the audit log records the terms. A listing already held stays so, unannounced."""
    if locked.status == ProductStatus.HELD:
        return locked
    terms = [term.term for term in verdict.terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.HELD],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.hold", target=locked, changes=changes)
    locked.status = ProductStatus.HELD
    _full_clean(locked)
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    tell_listing_review(
        company=locked.company,
        listing_title=locked.title,
        product_id=locked.pk,
        outcome="held",
        publisher=actor,
    )
    return locked


def _screened_if_public(product: Product) -> Verdict | None:
    """What screening finds in a published listing before an edit (None for the others)."""
    return screen_listing(product) if product.status == ProductStatus.PUBLISHED else None


def _hold_if_terms_added(actor: User, locked: Product, before: Verdict | None) -> Product:
    """Hold a published listing for review when an edit brought a banned term into it that
    was not there before (those it had were published, or approved, with it)."""
    if before is None:
        return locked
    after = screen_listing(locked)
    known = {term.pk for term in before.terms}
    if any(term.pk not in known for term in after.terms):
        return _hold_for_review(actor, locked, after)
    return locked


def _locked_held(product: Product) -> Product:
    locked = _locked(product)
    if locked.status != ProductStatus.HELD:
        raise ProductError(
            ProductErrorCode.NOT_HELD,
            _("This listing is no longer held for review: it is “%(status)s”.")
            % {"status": locked.get_status_display()},
        )
    return locked


@transaction.atomic
def product_review_approve(*, actor: User, product: Product) -> Product:
    """Publish a listing held for review (operators): what screening found is accepted for
    it. The company is told in its language; audited with the terms found."""
    require_operator(actor)
    locked = _locked_held(product)
    suspended = standing_refusal(locked.company)
    if suspended:
        raise ProductError(ProductErrorCode.COMPANY_SUSPENDED, suspended)
    terms = [term.term for term in screen_listing(locked).terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.PUBLISHED],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.review_approve", target=locked, changes=changes)
    locked.status = ProductStatus.PUBLISHED
    if locked.published_at is None:
        locked.published_at = timezone.now()
    _full_clean(locked)
    locked.save(update_fields=["status", "published_at", "updated_at"])
    _changed(locked)
    _emit_published(locked)
    tell_listing_review(
        company=locked.company, listing_title=locked.title, product_id=locked.pk, outcome="approved"
    )
    return locked


@transaction.atomic
def product_review_reject(*, actor: User, product: Product, reason: Any) -> Product:
    """Refuse to publish a listing held for review (operators): it goes back to the
    company's drafts, to be corrected and published again (screened again then). `reason`
    (at most 1,000 characters, in the company's language) is told to the company; audited."""
    require_operator(actor)
    errors = FieldErrors()
    why = errors.clean(
        "reason",
        clean_text,
        reason,
        max_length=REVIEW_REASON_MAX_LENGTH,
        required=True,
        single_line=False,
    )
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    locked = _locked_held(product)
    terms = [term.term for term in screen_listing(locked).terms]
    changes: dict[str, list[Any]] = {
        "status": [locked.status, ProductStatus.DRAFT],
        "reason": [None, why],
        "banned_terms": [None, terms],
    }
    audit_record(actor=actor, action="product.review_reject", target=locked, changes=changes)
    locked.status = ProductStatus.DRAFT
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    tell_listing_review(
        company=locked.company,
        listing_title=locked.title,
        product_id=locked.pk,
        outcome="rejected",
        reason=why or "",
    )
    return locked


# --- images ----------------------------------------------------------------------------------


def _delete_files_on_commit(names: Iterable[str | None]) -> None:
    """Delete these stored files after the commit, each only if no picture still uses it
    (the demo's products share files, and so may copies of a listing)."""
    stored = [name for name in names if name]

    def delete() -> None:
        for name in stored:
            if not ProductImage.objects.filter(Q(image=name) | Q(thumbnail=name)).exists():
                default_storage.delete(name)

    transaction.on_commit(delete)


def product_images_check(*, count: int) -> None:
    """Refuse (`TOO_MANY_IMAGES`) a product that would have `count` images, over the limit
    (`product_image_add` asks before adding one; the catalogue import before adding many)."""
    limit = settings.TRADEPOST_PRODUCT_MAX_IMAGES
    if count > limit:
        raise ProductError(
            ProductErrorCode.TOO_MANY_IMAGES,
            {
                "image": [
                    ngettext(
                        "A product has at most %(limit)d image.",
                        "A product has at most %(limit)d images.",
                        limit,
                    )
                    % {"limit": limit}
                ]
            },
        )


@transaction.atomic
def product_image_add(*, actor: User, product: Product, upload: File) -> ProductImage:
    """Add a photo after the product's others; it is checked and re-encoded first."""
    locked = _locked_to_manage(actor, product)
    product_images_check(count=locked.images.count() + 1)
    try:
        processed = process_image(upload)
    except ImageRejected as exc:
        raise ProductError(ProductErrorCode.IMAGE_REJECTED, {"image": [str(exc)]}) from None
    last = locked.images.aggregate(last=Max("position"))["last"]
    image = ProductImage(product=locked, position=0 if last is None else last + 1)
    image.image.save(processed.image.name or "image", processed.image, save=False)
    image.thumbnail.save(processed.thumbnail.name or "thumbnail", processed.thumbnail, save=False)
    image.width, image.height = processed.width, processed.height
    try:
        _full_clean(image)
        image.save()
        locked.save(update_fields=["updated_at"])
        _changed(locked)
    except BaseException:
        for name in (image.image.name, image.thumbnail.name):
            if name:
                default_storage.delete(name)
        raise
    return image


def _renumber(product: Product) -> None:
    for position, image in enumerate(product.images.order_by("position", "id")):
        if image.position != position:
            ProductImage.objects.filter(pk=image.pk).update(position=position)


@transaction.atomic
def product_image_remove(*, actor: User, product: Product, image_id: int) -> None:
    """Remove one of the product's photos; its files are deleted after the commit."""
    locked = _locked_to_manage(actor, product)
    image = locked.images.filter(pk=image_id).first()
    if image is None:
        raise ProductNotFound()
    names = [image.image.name, image.thumbnail.name]
    image.delete()
    _renumber(locked)
    locked.save(update_fields=["updated_at"])
    _changed(locked)
    _delete_files_on_commit(names)


@transaction.atomic
def product_image_reorder(*, actor: User, product: Product, image_ids: list[int]) -> None:
    """Put the product's photos in the given order; the first one is the main photo."""
    locked = _locked_to_manage(actor, product)
    current = list(locked.images.values_list("id", flat=True))
    try:
        wanted = [int(pk) for pk in image_ids]
    except (TypeError, ValueError):
        wanted = []
    if sorted(wanted) != sorted(current):
        raise ProductError(
            ProductErrorCode.INVALID,
            {"images": [_("List each of the product's images exactly once.")]},
        )
    for position, pk in enumerate(wanted):
        ProductImage.objects.filter(pk=pk, product=locked).update(position=position)
    locked.save(update_fields=["updated_at"])
    _changed(locked)


# --- translations ----------------------------------------------------------------------------


def _translation_language(product: Product, language: Any, errors: FieldErrors) -> str:
    code = (text_or_none(language) or "").lower()
    if code not in UI_LANGUAGES:
        errors.add(
            "language",
            _("Translations are written in English, Simplified Chinese or Traditional Chinese."),
        )
    elif code == product.original_language:
        errors.add("language", _("The product is written in this language already."))
    return code


def product_translation_check(
    *, product: Product, language: Any, title: Any, description: Any = ""
) -> tuple[str, str, str]:
    """The language code, title and description `product_translation_set` would store for
    `product`, checked as it checks them (`ProductError`); nothing is written (the catalogue
    import's preview checks a new product's translations with it, before the product is)."""
    errors = FieldErrors()
    code = _translation_language(product, language, errors)
    clean_title = errors.clean("title", clean_text, title, **_TITLE)
    clean_description = errors.clean("description", clean_rich_text, description, **_DESCRIPTION)
    errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    assert clean_title is not None and clean_description is not None  # else refused above
    return code, clean_title, clean_description


@transaction.atomic
def product_translation_set(
    *, actor: User, product: Product, language: str, title: str, description: str = ""
) -> ProductTranslation:
    """Write the product's title and description in another interface language."""
    locked = _locked_to_manage(actor, product)
    code, clean_title, clean_description = product_translation_check(
        product=locked, language=language, title=title, description=description
    )
    screened_before = _screened_if_public(locked)
    translation = ProductTranslation.objects.filter(product=locked, language=code).first()
    if translation is None:
        translation = ProductTranslation(product=locked, language=code)
    translation.title = clean_title
    translation.description = clean_description
    _full_clean(translation)
    translation.save()
    locked.save(update_fields=["updated_at"])
    _changed(locked)
    _hold_if_terms_added(actor, locked, screened_before)
    return translation


@transaction.atomic
def product_translation_remove(*, actor: User, product: Product, language: str) -> bool:
    """Remove the product's translation into `language`; False when there was none."""
    locked = _locked_to_manage(actor, product)
    deleted, _rows = ProductTranslation.objects.filter(product=locked, language=language).delete()
    if deleted:
        locked.save(update_fields=["updated_at"])
        _changed(locked)
    return bool(deleted)


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

"""Writes on a supplier's products: one function per use case, one transaction each.

Every function takes keyword arguments only, checks that the actor may manage the product's
company, validates everything before writing anything, and raises `ProductError` (a
`core.errors.DomainError` with messages per field) when refused: nothing is saved then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator, user_can_publish
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
from tradepost.catalog.permissions import can_manage_products
from tradepost.companies.models import Company
from tradepost.core.cleaning import decimal_or_none, one_line, text_or_none
from tradepost.core.countries import is_country
from tradepost.core.currencies import is_currency
from tradepost.core.html import sanitize_html
from tradepost.core.images import ImageRejected, process_image
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGE_CODES, UI_LANGUAGES
from tradepost.search.outbox import OutboxKind, record_change, record_changes

TITLE_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 20_000
KEYWORDS_MAX_LENGTH = 300
PORT_MAX_LENGTH = 100
ATTRIBUTES_MAX_COUNT = 30
ATTRIBUTE_NAME_MAX_LENGTH = 100
ATTRIBUTE_VALUE_MAX_LENGTH = 300
LEAD_TIME_MAX_DAYS = 3650
SLUG_MAX_LENGTH = 80


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


PRODUCT_FIELDS = frozenset(ProductFields.__annotations__)
REQUIRED_FIELDS = ("title", "category_id", "moq", "moq_unit")


# --- validation ------------------------------------------------------------------------------


class _Errors:
    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(str(message))

    def raise_if_any(self, code: ProductErrorCode = ProductErrorCode.INVALID) -> None:
        if self.by_field:
            raise ProductError(code, self.by_field)


def _clean_description(value: Any, errors: _Errors, field: str = "description") -> str:
    text = text_or_none(value)
    if text is None:
        errors.add(field, _("Enter text."))
        return ""
    # A very long input is refused before it is parsed.
    if len(text) > DESCRIPTION_MAX_LENGTH * 5:
        errors.add(field, _too_long(DESCRIPTION_MAX_LENGTH))
        return ""
    clean = sanitize_html(text).replace("\x00", "")
    if len(clean) > DESCRIPTION_MAX_LENGTH:
        errors.add(field, _too_long(DESCRIPTION_MAX_LENGTH))
    return clean


def _too_long(limit: int) -> str:
    return ngettext(
        "Use at most %(limit)d character.", "Use at most %(limit)d characters.", limit
    ) % {"limit": limit}


def _clean_title(value: Any, errors: _Errors, field: str = "title") -> str:
    text = text_or_none(value)
    if text is None:
        errors.add(field, _("Enter text."))
        return ""
    text = one_line(text)
    if not text:
        errors.add(field, _("This field is required."))
    elif len(text) > TITLE_MAX_LENGTH:
        errors.add(field, _too_long(TITLE_MAX_LENGTH))
    return text


def _clean_short_text(value: Any, errors: _Errors, field: str, limit: int) -> str:
    text = text_or_none(value)
    if text is None:
        errors.add(field, _("Enter text."))
        return ""
    text = one_line(text)
    if len(text) > limit:
        errors.add(field, _too_long(limit))
    return text


def _clean_choices(
    value: Any, errors: _Errors, field: str, allowed: Iterable[str], message: str
) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [part for part in re.split(r"[\s,]+", value) if part]
    if not isinstance(value, list | tuple):
        errors.add(field, message)
        return []
    allowed = list(allowed)
    chosen = set()
    for item in value:
        if not isinstance(item, str) or item.strip() not in allowed:
            errors.add(field, message)
            return []
        chosen.add(item.strip())
    return [code for code in allowed if code in chosen]


def _clean_attributes(value: Any, errors: _Errors) -> list[dict[str, str]]:
    field = "attributes"
    if value is None or value == "":
        return []
    if not isinstance(value, list | tuple):
        errors.add(field, _("Give attributes as a list of names and values."))
        return []
    rows: list[dict[str, str]] = []
    for number, item in enumerate(value, start=1):
        if isinstance(item, Mapping):
            name, val = item.get("name"), item.get("value")
        elif isinstance(item, list | tuple) and len(item) == 2:
            name, val = item
        else:
            errors.add(field, _("Give attributes as a list of names and values."))
            return []
        name_text, value_text = text_or_none(name), text_or_none(val)
        if name_text is None or value_text is None:
            errors.add(field, _("Attribute %(number)d: enter text.") % {"number": number})
            continue
        name_text, value_text = one_line(name_text), one_line(value_text)
        if not name_text and not value_text:
            continue
        if not name_text:
            errors.add(
                field, _("Attribute %(number)d has a value but no name.") % {"number": number}
            )
        elif len(name_text) > ATTRIBUTE_NAME_MAX_LENGTH:
            errors.add(
                field,
                _("Attribute %(number)d: use at most %(limit)d characters for the name.")
                % {"number": number, "limit": ATTRIBUTE_NAME_MAX_LENGTH},
            )
        if len(value_text) > ATTRIBUTE_VALUE_MAX_LENGTH:
            errors.add(
                field,
                _("Attribute %(number)d: use at most %(limit)d characters for the value.")
                % {"number": number, "limit": ATTRIBUTE_VALUE_MAX_LENGTH},
            )
        rows.append({"name": name_text, "value": value_text})
    if len(rows) > ATTRIBUTES_MAX_COUNT:
        errors.add(
            field,
            _("Add at most %(limit)d attributes; there are %(count)d.")
            % {"limit": ATTRIBUTES_MAX_COUNT, "count": len(rows)},
        )
    return rows


def _category_id(value: Any) -> int:
    """A positive database id from an int or a string of digits; 0 for anything else."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 0 < value < 2**63 else 0


def _clean_category(value: Any, errors: _Errors) -> Category | None:
    field = "category_id"
    if value is None or value == "":
        errors.add(field, _("Choose a category."))
        return None
    if isinstance(value, Category):
        category: Category | None = value
    else:
        pk = _category_id(value)
        category = Category.objects.filter(pk=pk).first() if pk else None
    if category is None:
        errors.add(field, _("Choose a category from the list."))
        return None
    if not category.is_leaf:
        errors.add(field, _("Choose the most specific category, one without sub-categories."))
        return None
    return category


def _clean_quantity(
    value: Any, errors: _Errors, field: str, *, required: bool, positive: bool
) -> Decimal | None:
    try:
        number = decimal_or_none(value)
    except ValueError:
        errors.add(field, _("Enter a number."))
        return None
    if number is None:
        if required:
            errors.add(field, _("This field is required."))
        return None
    if positive and number <= 0:
        errors.add(field, _("Enter a number greater than zero."))
    elif number < 0:
        errors.add(field, _("Enter zero or a positive number."))
    return number


def _clean_lead_time(value: Any, errors: _Errors) -> int | None:
    field = "lead_time_days"
    try:
        number = decimal_or_none(value)
    except ValueError:
        errors.add(field, _("Enter a whole number of days."))
        return None
    if number is None:
        return None
    if number != number.to_integral_value():
        errors.add(field, _("Enter a whole number of days."))
        return None
    if not 0 <= number <= LEAD_TIME_MAX_DAYS:
        errors.add(
            field,
            _("Enter a lead time between 0 and %(limit)d days.") % {"limit": LEAD_TIME_MAX_DAYS},
        )
        return None
    return int(number)


def _clean_unit(value: Any, errors: _Errors, field: str, *, required: bool) -> str:
    text = text_or_none(value)
    if not text:
        if required or text is None:
            errors.add(field, _("Choose a unit."))
        return ""
    if text not in Unit.values:
        errors.add(field, _("Choose a unit from the list."))
        return ""
    return text


def _clean_fields(data: Mapping[str, Any], *, creating: bool) -> dict[str, Any]:
    """Validate and normalise the given fields; raise ProductError listing every problem."""
    unknown = set(data) - PRODUCT_FIELDS
    if unknown:
        raise TypeError(f"unknown product fields: {', '.join(sorted(unknown))}")
    errors = _Errors()
    clean: dict[str, Any] = {}
    if creating:
        for name in REQUIRED_FIELDS:
            if name not in data:
                errors.add(name, _("This field is required."))
    for name, value in data.items():
        if name == "title":
            clean["title"] = _clean_title(value, errors)
        elif name == "description":
            clean["description"] = _clean_description(value, errors)
        elif name == "category_id":
            clean["category"] = _clean_category(value, errors)
        elif name == "keywords":
            clean["keywords"] = _clean_short_text(value, errors, name, KEYWORDS_MAX_LENGTH)
        elif name == "port_of_loading":
            clean["port_of_loading"] = _clean_short_text(value, errors, name, PORT_MAX_LENGTH)
        elif name == "attributes":
            clean["attributes"] = _clean_attributes(value, errors)
        elif name == "moq":
            clean["moq"] = _clean_quantity(value, errors, name, required=True, positive=True)
        elif name in ("price_min", "price_max", "supply_capacity"):
            clean[name] = _clean_quantity(value, errors, name, required=False, positive=False)
        elif name == "moq_unit":
            clean["moq_unit"] = _clean_unit(value, errors, name, required=True)
        elif name == "supply_capacity_unit":
            clean["supply_capacity_unit"] = _clean_unit(value, errors, name, required=False)
        elif name == "currency":
            code = (text_or_none(value) or "").upper()
            if not is_currency(code):
                errors.add(name, _("Choose a currency by its ISO 4217 code, such as USD."))
            clean["currency"] = code
        elif name == "incoterms":
            clean["incoterms"] = _clean_choices(
                value, errors, name, Incoterm.values, _("Choose Incoterms from the list.")
            )
        elif name == "payment_terms":
            clean["payment_terms"] = _clean_choices(
                value, errors, name, PaymentTerm.values, _("Choose payment terms from the list.")
            )
        elif name == "lead_time_days":
            clean["lead_time_days"] = _clean_lead_time(value, errors)
        elif name == "hs_code":
            text = text_or_none(value)
            if text is None:
                errors.add(name, _("Enter text."))
                continue
            code = normalise_hs_code(text) if text else ""
            message = hs_code_error(code) if code else None
            if message:
                errors.add(name, message)
            clean["hs_code"] = code
        elif name == "origin_country":
            code = (text_or_none(value) or "").upper()
            if code and not is_country(code):
                errors.add(name, _("Choose a country by its ISO 3166 code, such as CN."))
            clean["origin_country"] = code
        elif name == "original_language":
            code = (text_or_none(value) or "").lower()
            if code not in LISTING_LANGUAGE_CODES:
                errors.add(name, _("Choose a language from the list."))
            clean["original_language"] = code
    errors.raise_if_any()
    return clean


def _check_product(product: Product) -> None:
    """Rules across fields, then the model's own validation."""
    errors = _Errors()
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
        and product.translations.filter(language=product.original_language).exists()
    ):
        errors.add(
            "original_language", _("There is a translation in this language; remove it first.")
        )
    errors.raise_if_any()
    _full_clean(product)


_MODEL_TO_INPUT = {"category": "category_id"}


def _full_clean(obj: Any) -> None:
    try:
        obj.full_clean()
    except ValidationError as exc:
        raise ProductError.from_validation_error(
            ProductErrorCode.INVALID, exc, rename=_MODEL_TO_INPUT
        ) from None


def _slug_for(title: str) -> str:
    slug = slugify(title)[:SLUG_MAX_LENGTH].strip("-")
    return slug or "product"


def _ensure_can_manage(actor: User, company: Company) -> None:
    if not can_manage_products(actor, company):
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


def _changed(product: Product) -> None:
    """Tell the search index, in this transaction, that the product changed."""
    record_change(kind=OutboxKind.PRODUCT, object_id=product.pk)


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


@transaction.atomic
def product_update(*, actor: User, product: Product, **fields: Unpack[ProductFields]) -> Product:
    """Change the given fields of a product; its status stays as it is."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    clean = _clean_fields(fields, creating=False)
    _apply(locked, clean)
    if locked.published_at is None and "title" in clean:
        # The slug is fixed once the product has been published, so its links keep working.
        locked.slug = _slug_for(locked.title)
    _check_product(locked)
    locked.save()
    _changed(locked)
    return locked


@transaction.atomic
def product_publish(*, actor: User, product: Product) -> Product:
    """Show a product in the public catalogue."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    if locked.status == ProductStatus.HIDDEN and not is_operator(actor):
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION,
            _("This product was hidden by moderation and cannot be published."),
        )
    if not user_can_publish(actor):
        raise ProductError(
            ProductErrorCode.EMAIL_NOT_VERIFIED,
            _("Confirm your email address before publishing products."),
        )
    errors = _Errors()
    if not locked.title.strip():
        errors.add("title", _("Give the product a title before publishing it."))
    if not locked.category.is_leaf:
        errors.add(
            "category_id",
            _("Choose the most specific category, one without sub-categories."),
        )
    if locked.moq is None or locked.moq <= 0:
        errors.add("moq", _("Enter a minimum order quantity greater than zero."))
    errors.raise_if_any(ProductErrorCode.NOT_PUBLISHABLE)
    if locked.status == ProductStatus.PUBLISHED:
        return locked
    locked.status = ProductStatus.PUBLISHED
    if locked.published_at is None:
        locked.published_at = timezone.now()
    _full_clean(locked)
    locked.save(update_fields=["status", "published_at", "updated_at"])
    _changed(locked)
    return locked


@transaction.atomic
def product_unpublish(*, actor: User, product: Product) -> Product:
    """Take a published product back to draft."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    if locked.status == ProductStatus.HIDDEN:
        raise ProductError(
            ProductErrorCode.HIDDEN_BY_MODERATION, _("This product was hidden by moderation.")
        )
    if locked.status == ProductStatus.PUBLISHED:
        locked.status = ProductStatus.DRAFT
        locked.save(update_fields=["status", "updated_at"])
        _changed(locked)
    return locked


@transaction.atomic
def product_delete(*, actor: User, product: Product) -> Product:
    """Delete a product: it leaves the dashboard and the catalogue (the row is kept)."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    locked.status = ProductStatus.DELETED
    locked.save(update_fields=["status", "updated_at"])
    _changed(locked)
    return locked


# --- moderation ------------------------------------------------------------------------------


def _ensure_operator(actor: User) -> None:
    if not (actor.is_active and actor.is_staff):
        raise ProductError(ProductErrorCode.NOT_ALLOWED, _("Only operators may moderate listings."))


@transaction.atomic
def product_hide(*, actor: User, product: Product) -> Product:
    """Hide a listing from the catalogue by moderation; the supplier cannot publish it again."""
    _ensure_operator(actor)
    locked = _locked(product)
    if locked.status != ProductStatus.HIDDEN:
        locked.status = ProductStatus.HIDDEN
        locked.save(update_fields=["status", "updated_at"])
        _changed(locked)
    return locked


@transaction.atomic
def product_restore(*, actor: User, product: Product) -> Product:
    """Lift a moderation hide: the listing goes back to draft for the supplier to publish."""
    _ensure_operator(actor)
    locked = _locked(product)
    if locked.status == ProductStatus.HIDDEN:
        locked.status = ProductStatus.DRAFT
        locked.save(update_fields=["status", "updated_at"])
        _changed(locked)
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


@transaction.atomic
def product_image_add(*, actor: User, product: Product, upload: File) -> ProductImage:
    """Add a photo after the product's others; it is checked and re-encoded first."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    limit = settings.TRADEPOST_PRODUCT_MAX_IMAGES
    if locked.images.count() >= limit:
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
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
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
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
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


def _translation_language(product: Product, language: Any, errors: _Errors) -> str:
    code = (text_or_none(language) or "").lower()
    if code not in UI_LANGUAGES:
        errors.add(
            "language",
            _("Translations are written in English, Simplified Chinese or Traditional Chinese."),
        )
    elif code == product.original_language:
        errors.add("language", _("The product is written in this language already."))
    return code


@transaction.atomic
def product_translation_set(
    *, actor: User, product: Product, language: str, title: str, description: str = ""
) -> ProductTranslation:
    """Write the product's title and description in another interface language."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
    errors = _Errors()
    code = _translation_language(locked, language, errors)
    clean_title = _clean_title(title, errors)
    clean_description = _clean_description(description, errors)
    errors.raise_if_any()
    translation = ProductTranslation.objects.filter(product=locked, language=code).first()
    if translation is None:
        translation = ProductTranslation(product=locked, language=code)
    translation.title = clean_title
    translation.description = clean_description
    _full_clean(translation)
    translation.save()
    locked.save(update_fields=["updated_at"])
    _changed(locked)
    return translation


@transaction.atomic
def product_translation_remove(*, actor: User, product: Product, language: str) -> bool:
    """Remove the product's translation into `language`; False when there was none."""
    locked = _locked(product)
    _ensure_can_manage(actor, locked.company)
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

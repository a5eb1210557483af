"""A product's input fields (`ProductFields`) and their cleaners: what `product_create`,
`product_update` and the catalogue import's checks clean and check before anything is written."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, TypedDict

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.hs_codes import hs_code_error, normalise_hs_code
from tradepost.catalog.models import Category, PaymentTerm, Product, ProductStatus, Unit
from tradepost.catalog.services._common import _full_clean
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
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import UI_LANGUAGES

TITLE_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 20_000
KEYWORDS_MAX_LENGTH = 300
PORT_MAX_LENGTH = 100
ATTRIBUTES_MAX_COUNT = 30
ATTRIBUTE_NAME_MAX_LENGTH = 100
ATTRIBUTE_VALUE_MAX_LENGTH = 300
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

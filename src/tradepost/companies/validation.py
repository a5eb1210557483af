"""Checks and normalisation of the fields of a company profile, shared by web and API.

`clean_company_profile` takes raw values (from a form or a JSON body), returns the values to
store, and raises one CompanyError (code `invalid`) that names every bad field, so nothing is
half saved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.companies.errors import CompanyError, CompanyErrorCode
from tradepost.companies.models import BusinessType, EmployeeRange, Market
from tradepost.core import cleaning

LEGAL_NAME_MAX = 200
ENGLISH_NAME_MAX = 200
PLACE_MAX = 100
MAIN_PRODUCTS_MAX = 500
WEBSITE_MAX = 300
DESCRIPTION_MAX = 20_000
DESCRIPTION_INPUT_MAX = 60_000
CERTIFICATION_MAX = 60
CERTIFICATIONS_MAX_COUNT = 20
YEAR_MIN = 1800


class CompanyFields(TypedDict, total=False):
    """What a company's managers write about it: the input of `company_create` and
    `company_update` (absent keys are left as they are on update). The web form and the API
    body send these names; tests/test_input_layer.py keeps the three in step."""

    legal_name: str
    english_name: str
    original_language: str
    business_types: list[str] | str
    country: str
    province: str
    city: str
    year_established: int | str | None
    employee_range: str
    main_markets: list[str] | str
    main_products: str
    certifications: list[str] | str
    export_share: int | str | None
    website: str
    description: str


#: The fields a company's managers may edit, in the order forms show them.
PROFILE_FIELDS = tuple(CompanyFields.__annotations__)
REQUIRED_FIELDS = ("legal_name", "country")

_WEBSITE_VALIDATOR = URLValidator(schemes=["http", "https"])


def _clean_website(value: Any) -> str:
    value = cleaning.clean_text(value, max_length=WEBSITE_MAX)
    if not value:
        return ""
    message = _("Enter a web address that starts with http:// or https://.")
    if not value.lower().startswith(("http://", "https://")):
        raise cleaning.FieldInvalid(message)
    try:
        _WEBSITE_VALIDATOR(value)
    except ValidationError:
        raise cleaning.FieldInvalid(message) from None
    return value


def _clean_year_established(value: Any) -> int | None:
    return cleaning.clean_whole_number(
        value,
        low=YEAR_MIN,
        high=timezone.now().year,
        range_message=_("Enter a year between %(low)d and %(high)d."),
    )


#: How each profile field is cleaned: the cleaner and its options.
_PROFILE_CLEANERS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "legal_name": (cleaning.clean_text, {"max_length": LEGAL_NAME_MAX, "required": True}),
    "english_name": (cleaning.clean_text, {"max_length": ENGLISH_NAME_MAX}),
    "original_language": (cleaning.clean_listing_language, {}),
    "business_types": (
        cleaning.clean_choices,
        {
            "allowed": BusinessType.values,
            "message": gettext_lazy("“%(value)s” is not a known business type."),
        },
    ),
    "country": (cleaning.clean_country, {"required": True}),
    "province": (cleaning.clean_text, {"max_length": PLACE_MAX}),
    "city": (cleaning.clean_text, {"max_length": PLACE_MAX}),
    "year_established": (_clean_year_established, {}),
    "employee_range": (
        cleaning.clean_choice,
        {
            "allowed": EmployeeRange.values,
            "message": gettext_lazy("Choose a size from the list."),
        },
    ),
    "main_markets": (
        cleaning.clean_choices,
        {
            "allowed": Market.values,
            "message": gettext_lazy("“%(value)s” is not a known market."),
        },
    ),
    "main_products": (cleaning.clean_text, {"max_length": MAIN_PRODUCTS_MAX}),
    "certifications": (
        cleaning.clean_certifications,
        {"max_count": CERTIFICATIONS_MAX_COUNT, "max_length": CERTIFICATION_MAX},
    ),
    "export_share": (
        cleaning.clean_whole_number,
        {
            "low": 0,
            "high": 100,
            "range_message": gettext_lazy("Enter a percentage from %(low)d to %(high)d."),
        },
    ),
    "website": (_clean_website, {}),
    "description": (
        cleaning.clean_rich_text,
        {"max_length": DESCRIPTION_MAX, "max_input_length": DESCRIPTION_INPUT_MAX},
    ),
}
assert tuple(_PROFILE_CLEANERS) == PROFILE_FIELDS


def clean_company_profile(data: Mapping[str, Any], *, partial: bool) -> dict[str, Any]:
    """Validated values for the profile fields present in `data`.

    With `partial=False` the required fields must be present. Unknown keys are refused.
    """
    errors = cleaning.FieldErrors()
    cleaned: dict[str, Any] = {}
    for name in data:
        if name not in PROFILE_FIELDS:
            errors.add(name, _("This field cannot be changed."))
    if not partial:
        for name in REQUIRED_FIELDS:
            if name not in data:
                errors.add(name, _("This field is required."))
    for name, (cleaner, options) in _PROFILE_CLEANERS.items():
        if name in data:
            cleaned[name] = errors.clean(name, cleaner, data[name], **options)
    errors.raise_if_any(CompanyError, CompanyErrorCode.INVALID)
    return cleaned

"""Checks and normalisation of the fields of a company profile, shared by web and API.

`clean_company_profile` takes raw values (from a form or a JSON body), returns the values to
store, and raises one CompanyError (code `invalid`) that names every bad field, so nothing is
half saved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.companies.errors import CompanyError, CompanyErrorCode
from tradepost.companies.models import BusinessType, EmployeeRange, Market
from tradepost.core.countries import is_country
from tradepost.core.html import sanitize_html
from tradepost.core.languages import LISTING_LANGUAGE_CODES

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

#: The fields a company's managers may edit.
PROFILE_FIELDS = (
    "legal_name",
    "english_name",
    "original_language",
    "business_types",
    "country",
    "province",
    "city",
    "year_established",
    "employee_range",
    "main_markets",
    "main_products",
    "certifications",
    "export_share",
    "website",
    "description",
)
REQUIRED_FIELDS = ("legal_name", "country")

# Commas (Latin and CJK), the ideographic enumeration comma, semicolons and new lines.
_LIST_SEPARATORS = re.compile(r"[,，、;；\n\r]+")
_WEBSITE_VALIDATOR = URLValidator(schemes=["http", "https"])


class _FieldError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _text(value: Any, *, max_length: int, required: bool = False, single_line: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise _FieldError(_("Enter text."))
    value = " ".join(value.split()) if single_line else value.strip()
    if required and not value:
        raise _FieldError(_("This field is required."))
    if len(value) > max_length:
        raise _FieldError(
            _("Use at most %(max)d characters (this has %(count)d).")
            % {"max": max_length, "count": len(value)}
        )
    return value


def _choice_list(value: Any, *, allowed: set[str], unknown_message: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise _FieldError(_("Enter a list of values."))
    result: list[str] = []
    for item in value:
        if not isinstance(item, str) or item not in allowed:
            raise _FieldError(unknown_message % {"value": str(item)[:40]})
        if item not in result:
            result.append(item)
    return result


def _optional_int(value: Any, *, low: int, high: int, range_message: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise _FieldError(_("Enter a whole number."))
    if isinstance(value, str):
        value = value.strip()
        if not re.fullmatch(r"[+-]?\d{1,6}", value):
            raise _FieldError(_("Enter a whole number."))
        value = int(value)
    if isinstance(value, float):
        if not value.is_integer():
            raise _FieldError(_("Enter a whole number."))
        value = int(value)
    if not isinstance(value, int):
        raise _FieldError(_("Enter a whole number."))
    if not low <= value <= high:
        raise _FieldError(range_message % {"low": low, "high": high})
    return value


def parse_certifications(value: Any) -> list[str]:
    """A list of short certification names from a list or a comma separated string."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items = _LIST_SEPARATORS.split(value)
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise _FieldError(_("Enter certifications separated by commas."))
    result: list[str] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise _FieldError(_("Enter certifications separated by commas."))
        name = " ".join(item.split())
        if not name:
            continue
        if len(name) > CERTIFICATION_MAX:
            raise _FieldError(
                _("Each certification has at most %(max)d characters: “%(name)s…”.")
                % {"max": CERTIFICATION_MAX, "name": name[:20]}
            )
        if name.casefold() not in seen:
            seen.add(name.casefold())
            result.append(name)
    if len(result) > CERTIFICATIONS_MAX_COUNT:
        raise _FieldError(
            _("List at most %(max)d certifications.") % {"max": CERTIFICATIONS_MAX_COUNT}
        )
    return result


def _website(value: Any) -> str:
    value = _text(value, max_length=WEBSITE_MAX)
    if not value:
        return ""
    message = _("Enter a web address that starts with http:// or https://.")
    if not value.lower().startswith(("http://", "https://")):
        raise _FieldError(message)
    try:
        _WEBSITE_VALIDATOR(value)
    except ValidationError:
        raise _FieldError(message) from None
    return value


def _description(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _FieldError(_("Enter text."))
    if len(value) > DESCRIPTION_INPUT_MAX:
        raise _FieldError(
            _("Use at most %(max)d characters (this has %(count)d).")
            % {"max": DESCRIPTION_MAX, "count": len(value)}
        )
    cleaned = sanitize_html(value)
    if len(cleaned) > DESCRIPTION_MAX:
        raise _FieldError(
            _("Use at most %(max)d characters (this has %(count)d).")
            % {"max": DESCRIPTION_MAX, "count": len(cleaned)}
        )
    return cleaned


def _clean_field(name: str, value: Any) -> Any:
    if name == "legal_name":
        return _text(value, max_length=LEGAL_NAME_MAX, required=True)
    if name == "english_name":
        return _text(value, max_length=ENGLISH_NAME_MAX)
    if name == "original_language":
        if not isinstance(value, str) or value not in LISTING_LANGUAGE_CODES:
            raise _FieldError(_("Choose a language from the list."))
        return value
    if name == "business_types":
        return _choice_list(
            value,
            allowed=set(BusinessType.values),
            unknown_message=_("“%(value)s” is not a known business type."),
        )
    if name == "country":
        code = _text(value, max_length=2, required=True).upper()
        if not is_country(code):
            raise _FieldError(_("Choose a country from the list (ISO 3166 code)."))
        return code
    if name in ("province", "city"):
        return _text(value, max_length=PLACE_MAX)
    if name == "year_established":
        return _optional_int(
            value,
            low=YEAR_MIN,
            high=timezone.now().year,
            range_message=_("Enter a year between %(low)d and %(high)d."),
        )
    if name == "employee_range":
        if value in (None, ""):
            return ""
        if value not in EmployeeRange.values:
            raise _FieldError(_("Choose a size from the list."))
        return value
    if name == "main_markets":
        return _choice_list(
            value,
            allowed=set(Market.values),
            unknown_message=_("“%(value)s” is not a known market."),
        )
    if name == "main_products":
        return _text(value, max_length=MAIN_PRODUCTS_MAX)
    if name == "certifications":
        return parse_certifications(value)
    if name == "export_share":
        return _optional_int(
            value, low=0, high=100, range_message=_("Enter a percentage from %(low)d to %(high)d.")
        )
    if name == "website":
        return _website(value)
    if name == "description":
        return _description(value)
    raise _FieldError(_("This field cannot be changed."))


def clean_company_profile(data: Mapping[str, Any], *, partial: bool) -> dict[str, Any]:
    """Validated values for the profile fields present in `data`.

    With `partial=False` the required fields must be present. Unknown keys are refused.
    """
    errors: dict[str, list[str]] = {}
    cleaned: dict[str, Any] = {}
    for name in data:
        if name not in PROFILE_FIELDS:
            errors.setdefault(name, []).append(_("This field cannot be changed."))
    if not partial:
        for name in REQUIRED_FIELDS:
            if name not in data:
                errors.setdefault(name, []).append(_("This field is required."))
    for name in PROFILE_FIELDS:
        if name not in data:
            continue
        try:
            cleaned[name] = _clean_field(name, data[name])
        except _FieldError as exc:
            errors.setdefault(name, []).append(exc.message)
    if errors:
        raise CompanyError(CompanyErrorCode.INVALID, errors)
    return cleaned

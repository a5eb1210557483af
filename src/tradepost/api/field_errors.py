"""The message of an invalid field or parameter, in the client's language.

pydantic, which django-ninja reads bodies and parameters with, writes its messages in English
only ("Input should be a valid string"). Each kind of error it reports gets a message here;
a kind not listed gets a general one, never pydantic's English.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


def _kinds() -> dict[str, str]:
    number = _("Send a number, such as 12 or 2.50.")
    whole = _("Send a whole number.")
    date = _("Send a date as YYYY-MM-DD.")
    moment = _("Send a date and time in ISO 8601 format, such as 2025-06-30T12:00:00Z.")
    messages = {
        "missing": _("This field is required; send it."),
        "extra_forbidden": _("This field is not known here."),
        "string_type": _("Send text (a JSON string)."),
        "bool_type": _("Send true or false."),
        "bool_parsing": _("Send true or false."),
        "list_type": _("Send a list (a JSON array)."),
        "model_type": _("Send a JSON object."),
        "model_attributes_type": _("Send a JSON object."),
        "dict_type": _("Send a JSON object."),
    }
    for kind in ("int_type", "int_parsing", "int_from_float", "int_parsing_size"):
        messages[kind] = whole
    for kind in ("decimal_type", "decimal_parsing", "float_type", "float_parsing"):
        messages[kind] = number
    for kind in ("finite_number", "decimal_max_digits", "decimal_max_places"):
        messages[kind] = number
    for kind in ("date_type", "date_parsing", "date_from_datetime_parsing"):
        messages[kind] = date
    messages["date_from_datetime_inexact"] = date
    for kind in ("datetime_type", "datetime_parsing", "datetime_from_date_parsing"):
        messages[kind] = moment
    return messages


def _limited(kind: str, context: dict[str, Any]) -> str | None:
    """The message of an error about a bound (a number's, a text's length)."""
    messages = {
        ("greater_than_equal", "ge"): _("Send a number of at least %(limit)s."),
        ("greater_than", "gt"): _("Send a number greater than %(limit)s."),
        ("less_than_equal", "le"): _("Send a number of at most %(limit)s."),
        ("less_than", "lt"): _("Send a number less than %(limit)s."),
        ("string_too_long", "max_length"): _("Send at most %(limit)s characters."),
        ("string_too_short", "min_length"): _("Send at least %(limit)s characters."),
        ("too_long", "max_length"): _("Send at most %(limit)s items."),
    }
    for (name, key), message in messages.items():
        if kind == name and key in context:
            return message % {"limit": context[key]}
    if kind in ("literal_error", "enum") and "expected" in context:
        # pydantic lists them as "'a', 'b' or 'c'": the "or" is English.
        choices = str(context["expected"]).replace(" or ", ", ")
        return _("Send one of: %(choices)s.") % {"choices": choices}
    return None


def field_message(error: dict[str, Any]) -> str:
    """The message for one of pydantic's errors (an item of `ValidationError.errors()`)."""
    kind = str(error.get("type", ""))
    limited = _limited(kind, error.get("ctx") or {})
    if limited is not None:
        return limited
    return _kinds().get(kind, _("This value is not valid."))

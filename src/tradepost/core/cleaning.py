"""Turning what a form or an API client sent into clean values, for the write services.

Each helper says what it accepts; the services turn a refusal into an error in the user's
language, field by field.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

_WHITESPACE = re.compile(r"\s+")


def text_or_none(value: Any) -> str | None:
    """The value as a stripped string without NUL characters; "" for None; None when it
    is not text at all (a number, a list: the caller reports a wrong type)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return None
    return value.replace("\x00", "").strip()


def one_line(value: str) -> str:
    """Runs of white space (line breaks and tabs included) as single spaces."""
    return _WHITESPACE.sub(" ", value).strip()


def decimal_or_none(value: Any) -> Decimal | None:
    """A finite number from a string ("1,250.5"), an int or a float; None when empty.
    Raises ValueError for anything else (booleans, NaN, infinity, words)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(value)
        value = repr(value)
    try:
        number = Decimal(str(value).strip().replace(",", ""))
    except (InvalidOperation, ValueError):
        raise ValueError(value) from None
    if not number.is_finite():
        raise ValueError(value)
    return number

"""JSON request bodies are read as JSON types, as the schema describes them.

pydantic's lax mode converts what the schema refuses: `true` into the integer 1, "5" into 5,
1 or "yes" into true, a number into a date (seconds since 1970). So `{"ids": [false]}` marked
notification 0 read and answered 200 (found by scripts/api_fuzz.py). Every schema of a JSON
body (and every schema nested in one) derives from `JsonBody`, which is strict: an integer
field takes a JSON integer, a boolean field true or false, a string field a string, a list
an array, an object an object. The types JSON has no literal for use the aliases below:
`JsonDecimal` (a number, or a string holding one: "2.50"), `JsonDate` and `JsonDateTime`
(ISO 8601 text only). tests/api/test_request_bodies.py checks that every body follows this.

Query parameters are text, and pydantic reads " 6", "+6", "6_000" and "6.0" as the integer 6
(a tab before a `limit` was accepted, found by scripts/api_fuzz.py). Numbers in a query use
`QueryInt`, `QueryFloat` and `QueryDecimal`: digits, a minus sign, a decimal point and an
exponent only, as the schema's integer and number are written (tests/api/test_list_endpoints.py
checks every operation's query).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

from ninja import Schema
from pydantic import BeforeValidator, ConfigDict, Strict
from pydantic_core import PydanticCustomError


class JsonBody(Schema):
    model_config = ConfigDict(strict=True)


def _iso_text(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError("Input should be text in ISO 8601 format")
    return value


JsonDecimal = Annotated[Decimal, Strict(False)]
JsonDate = Annotated[date, Strict(False), BeforeValidator(_iso_text)]
JsonDateTime = Annotated[datetime, Strict(False), BeforeValidator(_iso_text)]


_WHOLE = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _written_as(pattern: re.Pattern[str], kind: str, message: str) -> Callable[[Any], Any]:
    """A query parameter's text checked to be written as the schema's number is, refused as
    pydantic refuses one it cannot read (`kind`: its own error, and its message)."""

    def check(value: Any) -> Any:
        if isinstance(value, str) and not pattern.fullmatch(value):
            raise PydanticCustomError(kind, message)
        return value

    return check


QueryInt = Annotated[
    int, BeforeValidator(_written_as(_WHOLE, "int_parsing", "Input should be a valid integer"))
]
QueryFloat = Annotated[
    float, BeforeValidator(_written_as(_NUMBER, "float_parsing", "Input should be a valid number"))
]
QueryDecimal = Annotated[
    Decimal,
    BeforeValidator(_written_as(_NUMBER, "decimal_parsing", "Input should be a valid decimal")),
]

"""JSON request bodies are read as JSON types, as the schema describes them.

pydantic's lax mode converts what the schema refuses: `true` into the integer 1, "5" into 5,
1 or "yes" into true, a number into a date (seconds since 1970). So `{"ids": [false]}` marked
notification 0 read and answered 200 (found by scripts/api_fuzz.py). Every schema of a JSON
body (and every schema nested in one) derives from `JsonBody`, which is strict: an integer
field takes a JSON integer, a boolean field true or false, a string field a string, a list
an array, an object an object. The types JSON has no literal for use the aliases below:
`JsonDecimal` (a number, or a string holding one: "2.50"), `JsonDate` and `JsonDateTime`
(ISO 8601 text only). tests/api/test_request_bodies.py checks that every body follows this.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

from ninja import Schema
from pydantic import BeforeValidator, ConfigDict, Strict


class JsonBody(Schema):
    model_config = ConfigDict(strict=True)


def _iso_text(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError("Input should be text in ISO 8601 format")
    return value


JsonDecimal = Annotated[Decimal, Strict(False)]
JsonDate = Annotated[date, Strict(False), BeforeValidator(_iso_text)]
JsonDateTime = Annotated[datetime, Strict(False), BeforeValidator(_iso_text)]

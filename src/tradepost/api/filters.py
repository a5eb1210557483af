"""The filters of buying requests, one schema for every endpoint that browses them.

`GET /api/v1/requests` (the board) and `GET /api/v1/search/requests` take the same parameters,
with the names the web pages use too (the board and the search page):
`category`, `destination`, `quantity_min`, `quantity_max`, `posted_within`
(docs/adr/0014-one-pagination-style.md). No other spelling is taken.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _
from ninja import Schema
from pydantic import Field

from tradepost.api.bodies import QueryDecimal, QueryInt
from tradepost.api.problems import validation_problem
from tradepost.catalog.selectors import MAX_ID
from tradepost.core.countries import COUNTRY_CODES
from tradepost.search.filters import MAX_POSTED_WITHIN_DAYS

#: Quantities above this are no quantity anyone orders (and overflow the search index).
MAX_QUANTITY = 10**12
MAX_CODES = 50


class RequestFilterQuery(Schema):
    category: QueryInt | None = Field(None, ge=1, le=MAX_ID, description="Category id (subtree)")
    destination: list[str] | None = Field(
        None,
        description="Destination countries (ISO 3166 alpha-2): repeat it or separate by commas",
    )
    quantity_min: QueryDecimal | None = Field(
        None, ge=0, le=MAX_QUANTITY, description="Quantity at least"
    )
    quantity_max: QueryDecimal | None = Field(
        None, ge=0, le=MAX_QUANTITY, description="Quantity at most"
    )
    posted_within: QueryInt | None = Field(
        None, ge=1, le=MAX_POSTED_WITHIN_DAYS, description="Posted within N days"
    )

    def destinations(self) -> tuple[str, ...]:
        """The destination codes, upper case; an unknown one is a 422 problem."""
        return country_codes("destination", self.destination)


def split_values(values: Iterable[str] | None) -> list[str]:
    """Repeated parameters and comma-separated lists, as one list of values."""
    out: list[str] = []
    for raw in values or []:
        # An empty value is not a code: it is refused, as the schema's enum says.
        out.extend(part.strip() for part in raw.split(","))
    return out


def country_codes(field: str, values: Iterable[str] | None) -> tuple[str, ...]:
    codes = [value.upper() for value in split_values(values)]
    if len(codes) > MAX_CODES or any(code not in COUNTRY_CODES for code in codes):
        raise validation_problem(
            [{"field": field, "message": _("Use two-letter ISO 3166 country codes.")}]
        )
    return tuple(codes)

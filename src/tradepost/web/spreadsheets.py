"""CSV downloads that spreadsheets open as they should: UTF-8 with a byte-order mark (Excel
reads Chinese names right only with it) and no cell a spreadsheet would run as a formula
(`core.spreadsheets`, which the catalogue export writes through too)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.http import HttpResponse

from tradepost.core.spreadsheets import BYTE_ORDER_MARK, FORMULA_STARTS, safe_cell, write_csv

__all__ = ["BYTE_ORDER_MARK", "FORMULA_STARTS", "csv_response", "safe_cell"]


def csv_response(
    *, filename: str, header: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """A CSV download named `filename` (ASCII): the header, then the rows, every cell
    guarded by `safe_cell`."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    write_csv(response, header=header, rows=rows)
    return response

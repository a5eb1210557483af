"""CSV downloads that spreadsheets open as they should: UTF-8 with a byte-order mark (Excel
reads Chinese names right only with it) and no cell a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any

from django.http import HttpResponse

#: What a spreadsheet takes for the start of a formula (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BYTE_ORDER_MARK = "\ufeff"


def safe_cell(value: Any) -> Any:
    """A text cell that starts like a formula, prefixed with an apostrophe so that it stays
    text; numbers are left as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_response(
    *, filename: str, header: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """A CSV download named `filename` (ASCII): the header, then the rows, every cell
    guarded by `safe_cell`."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.write(BYTE_ORDER_MARK)
    writer = csv.writer(response)
    writer.writerow([safe_cell(cell) for cell in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return response

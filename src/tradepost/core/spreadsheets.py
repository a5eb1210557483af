"""Cells a spreadsheet opens as they should: no text cell it would run as a formula (OWASP,
"CSV injection"), and CSV in UTF-8 with a byte-order mark (Excel reads Chinese right only
with it). The pages' CSV downloads (`web.spreadsheets`) and the catalogue export write
through these."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

#: What a spreadsheet takes for the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BYTE_ORDER_MARK = "\ufeff"


class _Writable(Protocol):
    def write(self, text: str, /) -> Any: ...


def safe_cell(value: Any) -> Any:
    """A text cell that starts like a formula, prefixed with an apostrophe so that it stays
    text; numbers are left as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def unguarded(text: str) -> str:
    """A cell read back: the apostrophe `safe_cell` put before a formula's start removed."""
    if text.startswith("'") and text[1:2] and text[1:].startswith(FORMULA_STARTS):
        return text[1:]
    return text


def write_csv(out: _Writable, *, header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> None:
    """The byte-order mark, the header and the rows, every cell guarded by `safe_cell`."""
    out.write(BYTE_ORDER_MARK)
    writer = csv.writer(out)
    writer.writerow([safe_cell(cell) for cell in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])

"""Object ids as they arrive from URLs, query strings and JSON bodies."""

from __future__ import annotations

from typing import Any

#: The largest id a database row can have (a signed 64-bit integer); a larger number in a URL
#: cannot name a row and would overflow SQLite's integer.
MAX_ID = 2**63 - 1


def parse_id(value: Any) -> int | None:
    """`value` as a row id (a whole number from 1 to `MAX_ID`), or None when it cannot be one.

    The `access_*` helpers answer None with their app's not-found error, the same as for an
    id that names nothing: "not a number", "no such row" and "not yours" look alike.
    """
    if isinstance(value, bool | float):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= MAX_ID else None

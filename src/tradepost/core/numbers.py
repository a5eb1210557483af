"""Numbers written for machines: the API's decimal strings."""

from __future__ import annotations

from decimal import Decimal


def decimal_text(value: Decimal | None, *, min_decimals: int = 0) -> str | None:
    """A plain decimal string without exponent or needless zeros ("2.50", "100")."""
    if value is None:
        return None
    text = f"{value.normalize():f}"
    if min_decimals:
        whole, _dot, fraction = text.partition(".")
        text = f"{whole}.{fraction.ljust(min_decimals, '0')}"
    return text

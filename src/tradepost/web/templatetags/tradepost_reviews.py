"""How reviews read on the pages: a supplier's average ("4.6") in the viewer's number format
and a review's stars."""

from __future__ import annotations

from decimal import Decimal

from django import template

from tradepost.web.templatetags.tradepost_catalog import format_number

register = template.Library()

STARS = 5


@register.filter
def rating_number(value: Decimal | None) -> str:
    """An average rating with one decimal place ("4.0", "4.6"), in the viewer's locale."""
    if value is None:
        return ""
    return format_number(Decimal(value).quantize(Decimal("0.1")), min_decimals=1)


@register.filter
def stars(rating: int | None) -> str:
    """A rating from 1 to 5 as filled and empty stars ("★★★★☆")."""
    filled = max(0, min(STARS, int(rating or 0)))
    return "★" * filled + "☆" * (STARS - filled)

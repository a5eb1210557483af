"""`{% held_listing_count %}`: the number of listings held for review because of banned terms
(the operator desk shows it beside its other queues)."""

from __future__ import annotations

from django import template

from tradepost.catalog.listing_screening import held_count

register = template.Library()


@register.simple_tag
def held_listing_count() -> int:
    return held_count()

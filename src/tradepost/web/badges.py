"""Which companies on a list page carry the Gold Supplier badge (membership.badges): one
lookup for the whole page, read by the product and company cards as `gold_ids`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tradepost.membership.badges import gold_badge_companies


def gold_ids(*, cards: Iterable[Any] = (), profiles: Iterable[Any] = ()) -> set[int]:
    """The ids of the companies behind `cards` (product cards) and `profiles` (company
    profiles) that carry the badge today."""
    companies = [card.product.company for card in cards]
    companies += [profile.company for profile in profiles]
    return gold_badge_companies(companies)

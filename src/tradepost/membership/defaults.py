"""The default set of plans an installation starts with: Free (forever) and Gold Supplier
(yearly). The data migration installs them; `install_default_plans` is idempotent, so a test
that flushed the tables can put them back.

Free's monthly quotation quota is left empty, which means the site's setting
TRADEPOST_MONTHLY_QUOTE_QUOTA (20 unless the operator set another). Gold's numbers are the
operator's to change in the admin afterwards.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

FREE = {
    "code": "free",
    "name_en": "Free",
    "name_zh_hans": "免费会员",
    "name_zh_hant": "免費會員",
    "price": Decimal("0"),
    "currency": "USD",
    "term_months": None,
    "monthly_quotation_quota": None,
    "showcase_slots": 0,
    "early_look_minutes": 0,
    "deeper_statistics": False,
    "verified_badge_eligible": False,
    "saved_searches": 10,
    "is_default": True,
    "is_offered": True,
    "position": 0,
}

GOLD = {
    "code": "gold",
    "name_en": "Gold Supplier",
    "name_zh_hans": "金牌供应商",
    "name_zh_hant": "金牌供應商",
    "price": Decimal("2000.00"),
    "currency": "USD",
    "term_months": 12,
    "monthly_quotation_quota": 100,
    "showcase_slots": 3,
    "early_look_minutes": 60,
    "deeper_statistics": True,
    "verified_badge_eligible": True,
    "saved_searches": 100,
    "is_default": False,
    "is_offered": True,
    "position": 10,
}


DEFAULT_PLANS = (FREE, GOLD)


def install_default_plans(model: Any) -> None:
    """Create or reset the default plans on `model` (the `Plan` model, or its historical
    version in a migration)."""
    names = {field.name for field in model._meta.get_fields()}
    for fields in DEFAULT_PLANS:
        # A migration's historical model may not have every field yet (the later migration
        # that adds one sets its value).
        known = {name: value for name, value in fields.items() if name in names}
        model.objects.update_or_create(code=fields["code"], defaults=known)

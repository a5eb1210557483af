"""The default set of plans: Free (forever) and Gold Supplier (yearly).

Free's monthly quotation quota is left empty, which means the site's setting
TRADEPOST_MONTHLY_QUOTE_QUOTA (20 unless the operator set another): the number an
installation had before plans existed keeps applying. Gold's numbers are the operator's to
change in the admin afterwards.
"""

from decimal import Decimal

from django.db import migrations

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
    "is_default": False,
    "is_offered": True,
    "position": 10,
}


def create_plans(apps, schema_editor):
    Plan = apps.get_model("membership", "Plan")
    for fields in (FREE, GOLD):
        Plan.objects.update_or_create(code=fields["code"], defaults=fields)


def remove_plans(apps, schema_editor):
    Plan = apps.get_model("membership", "Plan")
    Plan.objects.filter(code__in=[FREE["code"], GOLD["code"]], subscriptions__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("membership", "0001_plans_subscriptions_invoices")]

    operations = [migrations.RunPython(create_plans, remove_plans)]

"""Seed the exchange-rate table from the reference rates (operators edit it later)."""

from datetime import date
from decimal import Decimal

from django.db import migrations


def seed(apps, schema_editor):
    from tradepost.money.reference import RATES_AS_OF, UNITS_PER_USD

    ExchangeRate = apps.get_model("sourcing", "ExchangeRate")
    as_of = date.fromisoformat(RATES_AS_OF)
    for currency, units in UNITS_PER_USD.items():
        rate = (Decimal(1) / units).quantize(Decimal("0.000000000001"))
        ExchangeRate.objects.get_or_create(
            currency=currency, defaults={"rate_to_usd": rate, "as_of": as_of}
        )


class Migration(migrations.Migration):
    dependencies = [("sourcing", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]

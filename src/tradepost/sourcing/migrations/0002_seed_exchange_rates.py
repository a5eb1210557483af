"""Seed the exchange-rate table from the reference rates (operators edit it later)."""

from django.db import migrations


def seed(apps, schema_editor):
    from tradepost.money.reference import seed_rates

    seed_rates(apps.get_model("sourcing", "ExchangeRate"))


class Migration(migrations.Migration):
    dependencies = [("sourcing", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]

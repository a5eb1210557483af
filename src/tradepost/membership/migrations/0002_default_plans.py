"""Installs the default plans (Free, forever; Gold Supplier, yearly): membership/defaults.py."""

from django.db import migrations

from tradepost.membership.defaults import DEFAULT_PLANS, install_default_plans


def create_plans(apps, schema_editor):
    install_default_plans(apps.get_model("membership", "Plan"))


def remove_plans(apps, schema_editor):
    Plan = apps.get_model("membership", "Plan")
    Plan.objects.filter(code__in=[fields["code"] for fields in DEFAULT_PLANS], subscriptions__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("membership", "0001_plans_subscriptions_invoices")]

    operations = [migrations.RunPython(create_plans, remove_plans)]

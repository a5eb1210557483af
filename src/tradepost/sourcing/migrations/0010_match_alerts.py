# The alerts of new matching buying requests, one per supplier company, with the first look
# (docs/adr/0026-showcase-and-first-look.md).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("companies", "0002_company_standing"),
        ("sourcing", "0009_request_hidden_by_moderation"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchAlert",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("first_look", models.BooleanField(default=False, verbose_name="first look")),
                ("due_at", models.DateTimeField(verbose_name="due at")),
                ("sent_at", models.DateTimeField(blank=True, null=True, verbose_name="sent at")),
                ("recipients", models.PositiveIntegerField(default=0, verbose_name="people told")),
                ("created_at", models.DateTimeField(verbose_name="created at")),
                (
                    "company",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="companies.company",
                        verbose_name="supplier",
                    ),
                ),
                (
                    "request",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="match_alerts",
                        to="sourcing.buyingrequest",
                        verbose_name="buying request",
                    ),
                ),
            ],
            options={
                "verbose_name": "matching request alert",
                "verbose_name_plural": "matching request alerts",
                "ordering": ["due_at", "id"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("sent_at__isnull", True)),
                        fields=["due_at"],
                        name="match_alert_due",
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("request", "company"), name="one_match_alert_per_company"
                    )
                ],
            },
        ),
    ]

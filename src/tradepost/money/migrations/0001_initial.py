"""The exchange-rate model, taken over from the sourcing app with its table
(`sourcing_exchangerate`, created and seeded by sourcing 0001 and 0002)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [("sourcing", "0006_exchange_rate_moves_to_money")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ExchangeRate",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "currency",
                            models.CharField(max_length=3, unique=True, verbose_name="currency"),
                        ),
                        (
                            "rate_to_usd",
                            models.DecimalField(
                                decimal_places=12,
                                help_text="1 unit = N USD",
                                max_digits=20,
                                verbose_name="US dollars per unit",
                            ),
                        ),
                        ("as_of", models.DateField(verbose_name="as of")),
                    ],
                    options={
                        "verbose_name": "exchange rate",
                        "verbose_name_plural": "exchange rates",
                        "db_table": "sourcing_exchangerate",
                        "ordering": ["currency"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("rate_to_usd__gt", 0)),
                                name="exchange_rate_positive",
                            )
                        ],
                    },
                )
            ],
            database_operations=[],
        )
    ]

"""The exchange-rate model moves to the money app; its table stays where it is."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("sourcing", "0005_buying_request_matched_notified_at")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ExchangeRate")],
            database_operations=[],
        )
    ]

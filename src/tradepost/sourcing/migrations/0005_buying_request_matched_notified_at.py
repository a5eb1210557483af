from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("sourcing", "0004_buying_request_expiring_notified_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="buyingrequest",
            name="matched_notified_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]

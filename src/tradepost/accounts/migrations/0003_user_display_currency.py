from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_throttle_hits"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_currency",
            field=models.CharField(
                blank=True, default="", max_length=8, verbose_name="display currency"
            ),
        ),
    ]

from django.db import migrations, models


def mark_awarded_as_told(apps, schema_editor):
    """The suppliers of requests awarded before the award told them from a task were told in
    the award's transaction: none is told again."""
    BuyingRequest = apps.get_model("sourcing", "BuyingRequest")
    BuyingRequest.objects.filter(status="awarded").update(award_notified_at=models.F("closed_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("sourcing", "0010_match_alerts"),
    ]

    operations = [
        migrations.AddField(
            model_name="buyingrequest",
            name="award_notified_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(mark_awarded_as_told, migrations.RunPython.noop),
    ]

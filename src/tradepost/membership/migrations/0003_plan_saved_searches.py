"""Plans say how many trade alerts (saved searches) a company may keep: Free 10, Gold 100."""

from django.db import migrations, models


def set_gold(apps, schema_editor):
    apps.get_model("membership", "Plan").objects.filter(code="gold").update(saved_searches=100)


class Migration(migrations.Migration):
    dependencies = [("membership", "0002_default_plans")]

    operations = [
        migrations.AddField(
            model_name="plan",
            name="saved_searches",
            field=models.PositiveSmallIntegerField(
                default=10, verbose_name="trade alerts a company may keep"
            ),
        ),
        migrations.RunPython(set_gold, migrations.RunPython.noop),
    ]

from django.db import migrations


def load(apps, schema_editor):
    from tradepost.catalog.reference_data import load_reference_data

    load_reference_data(apps.get_model("catalog", "Category"), apps.get_model("catalog", "HSCode"))


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(load, migrations.RunPython.noop)]

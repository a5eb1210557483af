# The supplier's own product code (SKU), unique per company among products not deleted: the
# catalogue import finds a product by it (docs/adr/0027-catalogue-import.md).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0004_showcase"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="sku",
            field=models.CharField(blank=True, max_length=64, verbose_name="SKU"),
        ),
        migrations.AddConstraint(
            model_name="product",
            constraint=models.UniqueConstraint(
                condition=models.Q(("sku", ""), _negated=True)
                & models.Q(("status", "deleted"), _negated=True),
                fields=("company", "sku"),
                name="product_sku_unique_per_company",
                violation_error_message="Another of your products has this SKU.",
            ),
        ),
    ]

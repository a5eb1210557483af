import pytest

from tests.factories.imports import csv_bytes, product_rows, table, upload
from tradepost.catalog.models import Product
from tradepost.imports import services
from tradepost.imports.models import ImportStatus

pytestmark = pytest.mark.django_db


def test_smoke(cast):
    data = csv_bytes(table(product_rows(3)))
    job = services.import_upload(actor=cast.owner, company=cast.company, catalogue=upload(data))
    assert job.status == ImportStatus.READY, job.message
    assert (job.new_rows, job.rejected_rows) == (3, 0), list(job.rows.values("errors"))
    job = services.import_confirm(actor=cast.owner, job=job)
    assert job.status == ImportStatus.FINISHED, job.message
    assert job.created_count == 3
    assert Product.objects.filter(company=cast.company).count() == 3
    again = services.import_upload(actor=cast.owner, company=cast.company, catalogue=upload(data))
    assert (again.new_rows, again.changed_rows, again.unchanged_rows) == (0, 0, 3), list(
        again.rows.values("errors")
    )

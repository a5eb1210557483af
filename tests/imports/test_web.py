"""The supplier's pages: upload, preview, confirm, progress, result, downloads; who may see
them (another company's import is a 404 like a missing one; nothing changes when refused)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.factories.companies import make_trader
from tests.factories.imports import csv_bytes, pictures_zip, product_rows, table
from tradepost.catalog.models import Product
from tradepost.imports.models import ImportJob, ImportStatus

pytestmark = pytest.mark.django_db


def _url(name: str, job: ImportJob | None = None, language: str = "en") -> str:
    from django.utils import translation

    with translation.override(language):
        return reverse(f"imports:{name}", kwargs={"pk": job.pk} if job else {})


def _post_upload(client, rows, language="en", **extra):
    data = {
        "catalogue": SimpleUploadedFile("catalogue.csv", csv_bytes(table(rows))),
        "mode": "valid",
        "encoding": "",
        **extra,
    }
    return client.post(_url("list", language=language), data)


def test_the_dashboard_and_the_products_list_link_to_the_upload(client, supplier):
    client.force_login(supplier.owner)
    for page in (reverse("accounts:dashboard"), reverse("products:list")):
        assert _url("list") in client.get(page).content.decode()


def test_upload_preview_confirm_result(client, supplier):
    client.force_login(supplier.member)
    page = client.get(_url("list"))
    assert page.status_code == 200 and "Upload a file" in page.content.decode()
    rows = product_rows(3)
    rows[2]["moq"] = "lots"
    response = _post_upload(client, rows, pictures=SimpleUploadedFile("p.zip", pictures_zip()))
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == _url("detail", job)
    preview = client.get(_url("detail", job)).content.decode()
    assert "rows rejected" in preview and "Enter a number." in preview
    assert "Import now" in preview and Product.objects.count() == 0
    done = client.post(_url("confirm", job), {"mode": "valid"})
    assert done.status_code == 302
    job.refresh_from_db()
    assert (job.status, job.created_count, job.failed_count) == (ImportStatus.FINISHED, 2, 1)
    result = client.get(_url("detail", job)).content.decode()
    assert "products added" in result and "See your products" in result
    rejected = client.get(_url("rejected", job))
    assert rejected.status_code == 200 and rejected["Cache-Control"] == "private, no-store"
    assert b"Enter a number." in b"".join(rejected.streaming_content)


def test_the_page_speaks_the_uploaders_language(client, supplier):
    client.force_login(supplier.owner)
    rows = product_rows(2)
    rows[1]["currency"] = "dollars"
    _post_upload(client, rows, language="zh-hant")
    job = ImportJob.objects.get()
    assert job.language == "zh-hant"
    page = client.get(_url("detail", job, "zh-hant")).content.decode()
    assert "請以 ISO 4217 代碼選擇幣別" in page or "ISO 4217" in page
    (row,) = job.rows.all()
    assert any("\u4e00" <= char <= "\u9fff" for char in row.errors[0]["message"])


def test_a_refused_file_shows_why_on_the_form_and_stores_nothing(client, supplier):
    client.force_login(supplier.owner)
    response = client.post(
        _url("list"),
        {"catalogue": SimpleUploadedFile("photo.png", b"\x89PNG\r\n\x1a\n..."), "mode": "all"},
    )
    assert response.status_code == 400
    assert "not a CSV or XLSX file" in response.content.decode()
    assert not ImportJob.objects.exists()


def test_the_progress_endpoint_answers_the_status(client, supplier):
    job = supplier.upload_rows(product_rows(2))
    client.force_login(supplier.owner)
    status = client.get(_url("status", job)).json()
    assert status["status"] == "ready" and status["percent"] == 100
    assert status["count_text"] == "2 of 2 rows" and status["working"] is False


def test_a_working_import_shows_a_progress_bar_and_its_script(client, supplier):
    job = supplier.upload_rows(product_rows(2))
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.IMPORTING, rows_done=1)
    client.force_login(supplier.owner)
    page = client.get(_url("detail", job)).content.decode()
    assert "<progress" in page and "data-working" in page and "tradepost/imports.js" in page
    assert "<script>" not in page  # the CSP allows no inline script


def test_cancel_and_recheck(client, supplier):
    job = supplier.upload_rows(product_rows(1))
    client.force_login(supplier.owner)
    client.post(_url("recheck", job), {"encoding": "gb18030"})
    job.refresh_from_db()
    assert (job.encoding, job.status) == ("gb18030", ImportStatus.READY)
    client.post(_url("cancel", job))
    job.refresh_from_db()
    assert job.status == ImportStatus.CANCELLED
    refused = client.post(_url("confirm", job), {"mode": "all"}, follow=True)
    assert "cannot be confirmed now" in refused.content.decode()


def test_export_and_templates_download(client, supplier):
    supplier.run(product_rows(2))
    client.force_login(supplier.owner)
    export = client.get(_url("export") + "?format=xlsx")
    assert export.status_code == 200 and export["Content-Type"].startswith(
        "application/vnd.openxmlformats"
    )
    assert "attachment" in export["Content-Disposition"]
    csv_export = client.get(_url("export") + "?format=csv&language=zh-hans").content
    assert csv_export.decode("utf-8-sig").startswith("货号,标题")
    template = client.get(_url("template") + "?format=csv&language=zh-hant").content
    assert template.decode("utf-8-sig").startswith("貨號,標題")


@pytest.mark.parametrize("who", ["anonymous", "stranger", "loner"])
def test_others_cannot_see_or_touch_an_import(client, supplier, who):
    job = supplier.upload_rows(product_rows(1))
    if who == "stranger":
        client.force_login(make_trader()[0])
    elif who == "loner":
        from tests.factories.accounts import make_user

        client.force_login(make_user())
    for name in ("detail", "status", "rejected"):
        response = client.get(_url(name, job))
        assert response.status_code == (302 if who == "anonymous" else 404), name
    for name in ("confirm", "cancel", "recheck"):
        response = client.post(_url(name, job), {"mode": "valid", "encoding": "utf-8"})
        assert response.status_code == (302 if who == "anonymous" else 404), name
    job.refresh_from_db()
    assert job.status == ImportStatus.READY and Product.objects.count() == 0


def test_a_stranger_exports_their_own_catalogue_not_another(client, supplier):
    supplier.run(product_rows(2))
    stranger, _company = make_trader()
    client.force_login(stranger)
    export = client.get(_url("export") + "?format=csv").content.decode("utf-8-sig")
    assert "VF-0" not in export


def test_operators_read_imports_in_the_admin_and_cancel_them(client, supplier):
    from tests.factories.accounts import make_operator

    job = supplier.upload_rows(product_rows(1, moq="none"))
    client.force_login(make_operator())
    assert client.get(reverse("admin:imports_importjob_changelist")).status_code == 200
    page = client.get(reverse("admin:imports_importjob_change", args=[job.pk]))
    assert page.status_code == 200 and "Enter a number." in page.content.decode()
    client.post(
        reverse("admin:imports_importjob_changelist"),
        {"action": "cancel_imports", "_selected_action": [job.pk]},
    )
    job.refresh_from_db()
    assert job.status == ImportStatus.CANCELLED

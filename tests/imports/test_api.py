"""The API: upload (multipart), status, rows, confirm, result, the rejected rows as a file,
the export and the template; another company's import is a 404 like a missing one."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api_client import ApiClient
from tests.factories.companies import make_trader
from tests.factories.imports import csv_bytes, product_rows, table
from tradepost.api.urls import api
from tradepost.catalog.models import Product
from tradepost.imports.models import ImportJob

pytestmark = pytest.mark.django_db
BASE = "/api/v1/me/imports"


def _upload(client: ApiClient, rows, *, language="en", **fields):
    data = {
        "catalogue": SimpleUploadedFile("catalogue.csv", csv_bytes(table(rows))),
        **fields,
    }
    return client.client.post(BASE, data, headers={**client.headers, "Accept-Language": language})


def test_upload_check_confirm_and_read_the_result(supplier):
    client = ApiClient(supplier.owner)
    rows = product_rows(3)
    rows[1]["lead_time_days"] = "soon"
    created = _upload(client, rows, mode="valid")
    assert created.status_code == 201, created.content
    job = created.json()
    assert job["status"] == "ready"
    assert job["preview"] == {"new": 2, "changed": 0, "unchanged": 0, "rejected": 1, "flagged": 0}
    assert job["encoding"] == "utf-8" and job["file_format"] == "csv"
    rows_page = client.get(f"{BASE}/{job['id']}/rows", outcome="rejected").json()
    assert rows_page["count"] == 1
    (row,) = rows_page["items"]
    assert (row["line"], row["sku"], row["errors"][0]["column"]) == (3, "VF-1", "Lead time (days)")
    done = client.post(f"{BASE}/{job['id']}/confirm", {"mode": "valid"})
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "finished"
    assert done.json()["result"]["created"] == 2
    status = client.get(f"{BASE}/{job['id']}").json()
    assert status["percent"] == 100 and status["result"]["failed"] == 1
    rejected = client.get(f"{BASE}/{job['id']}/rejected")
    assert rejected.status_code == 200 and b"Reason" in b"".join(rejected.streaming_content)
    assert client.get(BASE).json()["count"] == 1


def test_reasons_come_in_the_clients_language(supplier):
    client = ApiClient(supplier.owner)
    rows = product_rows(1, moq="很多")
    job = _upload(client, rows, language="zh-hans").json()
    row = client.get(f"{BASE}/{job['id']}/rows").json()["items"][0]
    assert row["errors"] == [{"column": "Minimum order quantity", "message": "请输入数字。"}]


def test_all_or_nothing_with_a_rejected_row_is_a_conflict(supplier):
    client = ApiClient(supplier.owner)
    job = _upload(client, product_rows(2, currency="dollars")).json()
    refused = client.post(f"{BASE}/{job['id']}/confirm", {"mode": "all"})
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("import-rows-rejected")
    assert Product.objects.count() == 0


def test_a_file_that_is_no_catalogue_is_a_422_naming_the_part(supplier):
    client = ApiClient(supplier.owner)
    refused = client.client.post(
        BASE,
        {"catalogue": SimpleUploadedFile("a.pdf", b"%PDF-1.4\n")},
        headers=client.headers,
    )
    assert refused.status_code == 422
    (error,) = refused.json()["errors"]
    assert error["field"] == "catalogue" and "not a CSV or XLSX" in error["message"]
    assert not ImportJob.objects.exists()


def test_recheck_and_cancel(supplier):
    client = ApiClient(supplier.owner)
    job = _upload(client, product_rows(1)).json()
    again = client.post(f"{BASE}/{job['id']}/recheck", {"encoding": "big5"})
    assert again.status_code == 200 and again.json()["encoding"] == "big5"
    cancelled = client.post(f"{BASE}/{job['id']}/cancel")
    assert cancelled.json()["status"] == "cancelled"
    assert client.post(f"{BASE}/{job['id']}/confirm", {}).status_code == 409


def test_export_and_template(supplier):
    supplier.run(product_rows(2))
    client = ApiClient(supplier.owner)
    export = client.get("/api/v1/me/catalogue/export", format="csv", language="zh-hant")
    assert export.status_code == 200
    text = export.content.decode("utf-8-sig")
    assert text.startswith("貨號,標題") and "VF-1" in text
    template = client.get("/api/v1/me/catalogue/template", format="xlsx")
    assert template.status_code == 200 and template.content[:2] == b"PK"


@pytest.mark.parametrize("who", ["anonymous", "stranger"])
def test_another_companys_import_is_not_found(supplier, who):
    job = supplier.upload_rows(product_rows(1))
    client = ApiClient(None if who == "anonymous" else make_trader()[0])
    expected = 401 if who == "anonymous" else 404
    for path in ("", "/rows", "/rejected"):
        assert client.get(f"{BASE}/{job.pk}{path}").status_code == expected, path
    for path in ("/confirm", "/cancel"):
        assert client.post(f"{BASE}/{job.pk}{path}", {}).status_code == expected, path
    job.refresh_from_db()
    assert job.status == "ready" and Product.objects.count() == 0


def test_the_schema_describes_the_operations():
    schema = api.get_openapi_schema()
    paths = schema["paths"]
    upload = paths["/api/v1/me/imports"]["post"]
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"catalogue", "pictures", "encoding", "mode"} <= set(
        form.get("properties")
        or schema["components"]["schemas"][form["$ref"].rsplit("/", 1)[-1]]["properties"]
    )
    assert {"201", "401", "422"} <= {str(status) for status in upload["responses"]}
    assert "404" in {str(s) for s in paths["/api/v1/me/imports/{import_id}"]["get"]["responses"]}
    assert "/api/v1/me/catalogue/export" in paths

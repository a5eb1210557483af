"""The rows the check found new are kept for the import (`imports.kept`): the import writes
them as checked while that still holds, and plans them again when it does not."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from tests.factories.catalog import product_fields
from tests.factories.imports import product_rows
from tests.imports.conftest import Supplier
from tradepost.catalog import services as catalog
from tradepost.catalog.models import Category, Product, ProductStatus, ProductTranslation
from tradepost.imports import kept, running
from tradepost.imports.models import ImportJob, ImportStatus

pytestmark = pytest.mark.django_db


def _path(job: ImportJob) -> Any:
    return kept._path(job)


def _products(supplier: Supplier) -> dict[str, dict[str, Any]]:
    own = {"id", "company_id", "created_at", "updated_at"}
    return {
        product.sku: {
            name: value
            for name, value in vars(product).items()
            if not name.startswith("_") and name not in own
        }
        for product in Product.objects.filter(company=supplier.company)
    }


def _translations(supplier: Supplier) -> list[tuple[str, str, str, str]]:
    return sorted(
        ProductTranslation.objects.filter(product__company=supplier.company).values_list(
            "product__sku", "language", "title", "description"
        )
    )


def _rows() -> list[dict[str, Any]]:
    rows = product_rows(6, title_zh_hans="保温杯", price_min="2.125", moq="12.5")
    rows[1] = {**rows[1], "moq": "-1"}  # refused: not kept
    rows[2] = {**rows[2], "title_zh_hans": "", "attributes": "", "price_max": ""}
    return rows


def _planned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lines the planner plans from now on (the rows not taken as kept)."""
    planned: list[int] = []
    plan_row = running.Planner._plan

    def spy(self: Any, row: Any, *arguments: Any) -> Any:
        planned.append(row.line)
        return plan_row(self, row, *arguments)

    monkeypatch.setattr(running.Planner, "_plan", spy)
    return planned


def test_the_check_keeps_each_row_it_would_add_and_only_those(supplier):
    job = supplier.upload_rows(_rows(), mode="valid", inline=True)
    lines = _path(job).read_text(encoding="utf-8").splitlines()
    header, records = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    assert header == {"version": kept.VERSION, "sha256": job.sha256, "encoding": job.encoding}
    assert [(record["line"], record["sku"]) for record in records] == [
        (2, "VF-0"),
        (4, "VF-2"),
        (5, "VF-3"),
        (6, "VF-4"),
        (7, "VF-5"),
    ]
    assert records[0]["draft"]["values"]["price_min"] == "2.125"
    job = supplier.confirm(job, inline=True)
    assert (job.status, job.created_count, job.failed_count) == (ImportStatus.FINISHED, 5, 1)
    assert not _path(job).exists()  # it goes with the job's end


def test_rows_written_as_checked_are_stored_as_rows_planned_again():
    """The same file, imported with its kept rows and without them, stores the same."""
    with_kept, planned_again = Supplier(), Supplier()
    with_kept.run(_rows())
    job = planned_again.upload_rows(_rows(), mode="valid", inline=True)
    kept.forget(job)
    planned_again.confirm(job)
    stored = _products(with_kept)
    assert stored == _products(planned_again)
    assert len(stored) == 5 and stored["VF-0"]["moq"] == Decimal("12.500")
    assert _translations(with_kept) == _translations(planned_again)
    assert len(_translations(with_kept)) == 4


@pytest.mark.parametrize(
    "damage",
    [
        "missing",
        "empty",
        "another version",
        "another file",
        "cut short",
        "not json",
        "not utf-8",
        "not records",
        "records of another shape",
    ],
)
def test_a_job_without_sound_kept_rows_is_planned_again_whole(supplier, monkeypatch, damage):
    job = supplier.upload_rows(_rows(), mode="valid", inline=True)
    path = _path(job)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    if damage == "missing":
        path.unlink()
    elif damage == "empty":
        path.write_text("")
    elif damage == "another version":
        lines[0] = json.dumps({**header, "version": kept.VERSION + 1})
    elif damage == "another file":
        lines[0] = json.dumps({**header, "sha256": "0" * 64})
    elif damage == "cut short":
        lines[3] = lines[3][: len(lines[3]) // 2]
    elif damage == "not json":
        lines[1] = "\x00\ud800 <script>"
    elif damage == "not records":
        lines[1:] = ["[1, 2]", '"text"', "null", '{"line": "2", "sku": "VF-0"}', "{}"]
    elif damage == "records of another shape":
        for at in range(1, len(lines)):
            record = json.loads(lines[at])
            record["draft"] = {"values": {"moq": "not a number", "category": []}}
            record["translations"] = 7
            lines[at] = json.dumps(record)
    if damage == "not utf-8":
        path.write_bytes(path.read_bytes().replace(b'"VF-2"', b'"VF-\xff\xfe"'))
    elif damage not in ("missing", "empty"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    planned = _planned(monkeypatch)
    job = supplier.confirm(job, inline=True)
    assert (job.status, job.created_count, job.failed_count) == (ImportStatus.FINISHED, 5, 1)
    if damage == "cut short":
        assert planned == [3, 5, 6, 7]  # the refused row, and every row from the cut on
    else:  # every row (a byte not UTF-8 stops the reading from its decoder's read-ahead on)
        assert planned == [2, 3, 4, 5, 6, 7]


def test_a_product_given_the_sku_meanwhile_is_changed_not_added_again(supplier):
    job = supplier.upload_rows(_rows(), mode="valid", inline=True)
    assert job.new_rows == 5
    meanwhile = catalog.product_create(
        actor=supplier.owner,
        company=supplier.company,
        **product_fields(sku="VF-3", title="Made by hand meanwhile", price_max="99"),
    )
    job = supplier.confirm(job, inline=True)
    assert (job.created_count, job.updated_count, job.failed_count) == (4, 1, 1)
    assert Product.objects.filter(company=supplier.company, sku="VF-3").count() == 1
    meanwhile.refresh_from_db()
    assert meanwhile.title == _rows()[3]["title"]  # the file's, over the hand-made product's


def test_a_category_split_meanwhile_refuses_its_rows_at_the_write(supplier, errors_of):
    job = supplier.upload_rows(_rows(), mode="valid", inline=True)
    Category.objects.filter(slug="home-garden-vacuum-flasks").update(is_leaf=False)
    job = supplier.confirm(job, inline=True)
    assert (job.created_count, job.failed_count) == (0, 6)
    reasons = errors_of(job)
    assert "sub-categories" in reasons[2][0][1]
    assert not Product.objects.filter(company=supplier.company).exists()


def test_a_stopped_import_goes_on_with_the_kept_rows_from_its_checkpoint(supplier, monkeypatch):
    monkeypatch.setattr(running, "WRITE_CHUNK", 4)
    rows = product_rows(10)
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    write_chunk = running._write_chunk
    calls: list[int] = []

    class Killed(Exception):
        pass

    def dies_in_the_second_chunk(*arguments: Any, **options: Any) -> None:
        calls.append(options["start"])
        if len(calls) == 2:
            raise Killed()
        write_chunk(*arguments, **options)

    monkeypatch.setattr(running, "_write_chunk", dies_in_the_second_chunk)
    with pytest.raises(Killed):
        supplier.confirm(job, inline=True)
    job.refresh_from_db()
    assert (job.status, job.rows_done, job.created_count) == (ImportStatus.IMPORTING, 4, 4)
    assert _path(job).exists()
    monkeypatch.setattr(running, "_write_chunk", write_chunk)
    planned = _planned(monkeypatch)
    running.import_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.rows_done, job.created_count) == (ImportStatus.FINISHED, 10, 10)
    assert planned == []  # each row after the checkpoint written as the check kept it
    assert sorted(
        Product.objects.filter(company=supplier.company).values_list("sku", flat=True)
    ) == sorted(row["sku"] for row in rows)


def test_a_kept_rows_flags_and_publishing_survive(supplier):
    """A garbled cell's flag and the wish to publish go with the kept row: an unconfirmed
    email keeps the product a draft, and the row says so with its flag."""
    supplier.owner.email_verified_at = None
    supplier.owner.save()
    rows = product_rows(2, status="published", keywords="æ¯å­")  # UTF-8 read as Latin-1
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    assert job.flagged_rows == 2
    job = supplier.confirm(job, inline=True)
    assert job.created_count == 2
    assert set(
        Product.objects.filter(company=supplier.company).values_list("status", flat=True)
    ) == {ProductStatus.DRAFT}
    row = job.rows.get(line=2)
    assert "not published" in row.errors[0]["message"]
    assert row.warnings and row.warnings[0]["suggestion"]


def test_a_cancelled_or_failed_check_leaves_no_kept_rows(supplier, monkeypatch):
    job = supplier.upload_rows(product_rows(3), mode="valid", inline=True)
    assert _path(job).exists()
    from tradepost.imports import services

    services.import_cancel(actor=supplier.owner, job=job)
    assert not _path(job).exists()

    def broken(*_arguments: Any, **_options: Any) -> Any:
        raise running.Stopped()

    job = supplier.upload_rows(product_rows(3), mode="valid", inline=True)
    kept.forget(job)
    monkeypatch.setattr(running.Planner, "plan", broken)
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.CHECKING)
    running.import_check(job_id=job.pk)
    assert not _path(job).exists()
    assert not list(_path(job).parent.glob("*.part"))


def test_the_same_file_again_is_compared_once(supplier, monkeypatch):
    rows = product_rows(6, title_zh_hans="保温杯", status="published")
    supplier.run(rows)
    before = _products(supplier)
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    assert (job.unchanged_rows, job.new_rows, job.changed_rows) == (6, 0, 0)
    planned = _planned(monkeypatch)
    job = supplier.confirm(job, inline=True)
    assert planned == []
    assert (job.skipped_count, job.updated_count, job.created_count) == (6, 0, 0)
    assert _products(supplier) == before


def test_a_product_changed_meanwhile_is_compared_again(supplier, monkeypatch):
    rows = product_rows(4)
    supplier.run(rows)
    job = supplier.upload_rows(rows, mode="valid", inline=True)
    assert job.unchanged_rows == 4
    product = Product.objects.get(company=supplier.company, sku="VF-2")
    catalog.product_update(actor=supplier.owner, product=product, price_max="99")
    catalog.product_translation_set(
        actor=supplier.owner,
        product=Product.objects.get(sku="VF-3"),
        language="zh-hans",
        title="杯",
    )
    planned = _planned(monkeypatch)
    job = supplier.confirm(job, inline=True)
    assert planned == [4, 5]  # the two products changed by hand since the check
    assert (job.skipped_count, job.updated_count) == (3, 1)
    product.refresh_from_db()
    assert product.price_max == Decimal(rows[2]["price_max"])  # the file's again


def test_both_passes_run_with_the_long_lived_objects_set_aside(supplier, monkeypatch):
    import gc

    frozen: list[int] = []
    plan = running.Planner.plan

    def spy(self: Any, *arguments: Any) -> Any:
        frozen.append(gc.get_freeze_count())
        return plan(self, *arguments)

    monkeypatch.setattr(running.Planner, "plan", spy)
    supplier.run(product_rows(3))
    assert len(frozen) == 2 and all(count > 0 for count in frozen)  # the check, the import
    assert gc.get_freeze_count() == 0


def test_two_checks_of_one_job_at_once_each_finish_and_leave_one_sound_file(supplier, monkeypatch):
    job = supplier.upload_rows(product_rows(4), mode="valid", inline=True)
    with running._opened(job) as (rows, _box):
        layout = running._layout(rows, job)
        plans = running.Planner(company=job.company, layout=layout, pictures=None).plan(list(rows))
    first, second = kept.keeping(job), kept.keeping(job)
    keep_first, keep_second = first.__enter__(), second.__enter__()
    for plan in plans:
        keep_first(plan)
        keep_second(plan)
    first.__exit__(None, None, None)
    second.__exit__(None, None, None)
    assert not list(_path(job).parent.glob("*.part"))
    assert len(_path(job).read_text(encoding="utf-8").splitlines()) == 5  # header, 4 rows
    planned = _planned(monkeypatch)
    job = supplier.confirm(job, inline=True)
    assert job.created_count == 4 and planned == []  # every row taken as kept

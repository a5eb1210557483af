"""The two passes over an uploaded catalogue: the check (the preview) and the import.

Both read the stored file from the start, row after row, chunk after chunk, so a file of any
size runs in little memory. The check writes nothing of the catalogue: it counts what each
row would do and keeps the rejected and garbled rows (`ImportRow`). The import writes the new
products of each chunk of rows together, with their translations
(`catalog.services.products_create_many`: the same cleaners and rules as `product_create`,
in a few statements a chunk), and every other row (a product changed, pictures) with its
translations and pictures in a savepoint of its own, through the catalogue's services
(`product_create`, `product_update`, `product_translation_set`, `product_image_add`);
publishing is `product_publish`, row after row (banned terms and duplicate checks included,
every rule of the product pages applies). It commits each chunk together with the job's
checkpoint (how many rows are done, and the counters). A worker killed with
`kill -9` loses the chunk it was writing, all of it: no product is ever half written. Run
again (the worker's timer picks up a stalled job, `tradepost import-products --resume`), the
import goes on from the checkpoint; and as rows are found by their SKU, a row written twice
changes nothing the second time.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from itertools import islice
from typing import Any

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.accounts.selectors import user_can_publish
from tradepost.catalog import services as catalog
from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import Product, ProductImage, ProductStatus
from tradepost.companies.selectors import standing_refusal
from tradepost.core.events import EventType, emit
from tradepost.core.garbage import long_lived_set_aside
from tradepost.imports import exports, kept
from tradepost.imports.models import ImportedPicture, ImportJob, ImportRow, ImportStatus, RowOutcome
from tradepost.imports.pictures import PictureBox
from tradepost.imports.planning import Layout, Planner, RowPlan
from tradepost.imports.reading import FileRejected, Row, max_rows, rows_of

logger = logging.getLogger(__name__)

#: Rows checked between two progress writes.
CHECK_CHUNK = 500
#: Rows written in one transaction, with the checkpoint (the new products of a chunk in bulk).
WRITE_CHUNK = 500


class Stopped(Exception):
    """The job was cancelled, or another worker took it over."""


def _chunks(rows: Iterator[Row], size: int) -> Iterator[list[Row]]:
    while chunk := list(islice(rows, size)):
        yield chunk


@contextmanager
def _opened(
    job: ImportJob,
) -> Iterator[tuple[Iterator[Row], PictureBox | None]]:
    """The file's rows and the ZIP's pictures, closed afterwards."""
    sheet = job.file.open("rb")
    box = None
    pictures = None
    try:
        if job.pictures:
            pictures = job.pictures.open("rb")
            box = PictureBox(pictures, job.pictures_name)
        rows = rows_of(
            sheet, file_format=job.file_format, encoding=job.encoding, name=job.original_name
        )
        try:
            yield rows, box
        finally:
            if hasattr(rows, "close"):
                rows.close()
    finally:
        if box is not None:
            box.close()
        if pictures is not None:
            pictures.close()
        sheet.close()


def _layout(rows: Iterator[Row], job: ImportJob) -> Layout:
    try:
        header = next(rows)
    except StopIteration:
        raise FileRejected(_("%(name)s holds no rows.") % {"name": job.original_name}) from None
    return Layout.from_header(header)


def _fail(job_id: int, status: str, message: str) -> None:
    ImportJob.objects.filter(pk=job_id, status=status).update(
        status=ImportStatus.FAILED,
        message=message,
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )


def _notes(job: ImportJob, layout: Layout, wants_publishing: bool) -> list[str]:
    """What the uploader should know about the file as a whole, in their language."""
    notes = []
    if layout.unknown:
        notes.append(
            _("These columns are not known and were left out: %(columns)s.")
            % {"columns": ", ".join(f"“{name}”" for name in layout.unknown[:20])}
        )
    if wants_publishing:
        refusal = standing_refusal(job.company)
        if refusal:
            notes.append(refusal + " " + _("The products will be saved as drafts."))
        elif not user_can_publish(job.created_by):
            notes.append(
                _(
                    "Confirm your email address to publish products: until then they are "
                    "saved as drafts."
                )
            )
    return notes


# --- the check (the preview) -----------------------------------------------------------------


def import_check(*, job_id: int, progress: Any = None) -> None:
    """Check every row of a job being checked: count what each would do, keep the rejected
    and garbled ones, and leave the job "ready" (or "failed", with why).
    `progress(rows_done, rows_total)` is called after each chunk (the command's bar)."""
    job = ImportJob.objects.select_related("company", "created_by").filter(pk=job_id).first()
    if job is None or job.status != ImportStatus.CHECKING:
        return
    with translation.override(job.language), long_lived_set_aside():
        try:
            _check(job, progress)
        except FileRejected as refusal:
            _fail(job.pk, ImportStatus.CHECKING, str(refusal))
        except Stopped:
            return


def _check(job: ImportJob, progress: Any) -> None:
    ImportRow.objects.filter(job=job).delete()
    counts: Counter[str] = Counter()
    wants_publishing = False
    total = 0
    limit = max_rows()
    with _opened(job) as (rows, box), kept.keeping(job) as keep:
        layout = _layout(rows, job)
        planner = Planner(company=job.company, layout=layout, pictures=box)
        for chunk in _chunks(rows, CHECK_CHUNK):
            total += len(chunk)
            if total > limit:
                raise FileRejected(
                    _("The file has more than %(limit)d rows; split it into smaller files.")
                    % {"limit": limit}
                )
            recorded = []
            for plan in planner.plan(chunk):
                keep(plan)
                counts[plan.outcome] += 1
                counts["flagged"] += bool(plan.flags)
                wants_publishing = wants_publishing or plan.publish is True
                if plan.rejected or plan.flags:
                    recorded.append(_row_record(job, plan))
            with transaction.atomic():
                ImportRow.objects.bulk_create(recorded)
                moved = ImportJob.objects.filter(pk=job.pk, status=ImportStatus.CHECKING).update(
                    rows_done=total,
                    rows_total=max(total, job.rows_total),
                    updated_at=timezone.now(),
                )
                if not moved:
                    raise Stopped()
            if progress is not None:
                progress(total, max(total, job.rows_total))
    ImportJob.objects.filter(pk=job.pk, status=ImportStatus.CHECKING).update(
        status=ImportStatus.READY,
        rows_total=total,
        rows_done=total,
        header_language=layout.language,
        new_rows=counts[RowOutcome.NEW],
        changed_rows=counts[RowOutcome.CHANGED],
        unchanged_rows=counts[RowOutcome.UNCHANGED],
        rejected_rows=counts[RowOutcome.REJECTED],
        flagged_rows=counts["flagged"],
        notes=_notes(job, layout, wants_publishing),
        header=layout.headings,
        updated_at=timezone.now(),
    )
    store_rejected(job)


def store_rejected(job: ImportJob) -> None:
    """Write the file of rejected rows (`exports.rejected_file`) where the downloads are
    served from: once when the check ends, again when the import refuses rows."""
    job.refresh_from_db()
    before = job.rejected_file.name if job.rejected_file else ""
    download = exports.rejected_file(job)
    job.rejected_file.save(download.filename, ContentFile(download.content), save=False)
    ImportJob.objects.filter(pk=job.pk).update(rejected_file=job.rejected_file.name)
    if before:
        job.rejected_file.storage.delete(before)


def _row_record(
    job: ImportJob, plan: RowPlan, problems: Sequence[dict[str, str]] = ()
) -> ImportRow:
    return ImportRow(
        job=job,
        line=plan.row.line,
        sku=plan.sku,
        outcome=RowOutcome.REJECTED if (plan.rejected or problems) else plan.outcome,
        errors=list(problems) or plan.problems,
        warnings=plan.flags,
        cells=plan.row.cells if (plan.rejected or problems) else [],
    )


# --- the import ------------------------------------------------------------------------------


def import_run(*, job_id: int, progress: Any = None) -> None:
    """Write the rows of a confirmed job, from its checkpoint on, and finish it.
    `progress(rows_done, rows_total)` is called after each chunk (the command's bar)."""
    job = ImportJob.objects.select_related("company", "created_by").filter(pk=job_id).first()
    if job is None or job.status != ImportStatus.IMPORTING:
        return
    if job.created_by is None:
        _end(job, ImportStatus.FAILED, _("The person who uploaded the file left."))
        return
    with translation.override(job.language), long_lived_set_aside():
        try:
            _run(job, job.created_by, progress)
        except FileRejected as refusal:
            _end(job, ImportStatus.FAILED, str(refusal))
            return
        except Stopped:
            return
    _end(job, ImportStatus.FINISHED)


def _end(job: ImportJob, status: str, message: str = "") -> None:
    """Finish an import (or fail it) and tell the company's webhooks (`import.finished`,
    recorded in the same transaction: sent after the commit)."""
    now = timezone.now()
    with transaction.atomic():
        ended = ImportJob.objects.filter(pk=job.pk, status=ImportStatus.IMPORTING).update(
            status=status, message=message, finished_at=now, updated_at=now
        )
        if not ended:
            return
        kept.forget(job)  # the check's cache, no longer needed
        job.refresh_from_db()
        emit(
            EventType.IMPORT_FINISHED,
            company_id=job.company_id,
            payload={
                "import_id": job.pk,
                "status": job.status,
                "file_name": job.original_name,
                "rows": job.rows_total,
                "created": job.created_count,
                "updated": job.updated_count,
                "unchanged": job.skipped_count,
                "failed": job.failed_count,
                "pictures_added": job.pictures_added,
                "message": job.message,
                "finished_at": now.isoformat(),
            },
        )
    if job.failed_count > job.rejected_rows:  # the import refused rows the check let through
        store_rejected(job)


def _run(job: ImportJob, actor: User, progress: Any) -> None:
    done = job.rows_done
    index = 0
    checked = kept.Kept(job)
    with _opened(job) as (rows, box), closing(checked):
        layout = _layout(rows, job)
        planner = Planner(company=job.company, layout=layout, pictures=box)
        for chunk in _chunks(rows, WRITE_CHUNK):
            chunk_kept = checked.upto(chunk[-1].line)
            if index + len(chunk) <= done:
                planner.note(chunk)
                index += len(chunk)
                continue
            skipped = max(0, done - index)
            planner.note(chunk[:skipped])
            _write_chunk(
                job,
                actor,
                planner,
                box,
                chunk[skipped:],
                start=index + skipped,
                kept_rows=chunk_kept,
            )
            index += len(chunk)
            if progress is not None:
                progress(index, job.rows_total)


def _write_chunk(
    job: ImportJob,
    actor: User,
    planner: Planner,
    box: PictureBox | None,
    chunk: Sequence[Row],
    *,
    start: int,
    kept_rows: Mapping[int, Mapping[str, Any]] | None = None,
) -> None:
    """Write one chunk and its checkpoint in one transaction (each row in its own savepoint:
    a refused row leaves nothing of itself). `kept_rows`: the chunk's rows the check kept."""
    counts: Counter[str] = Counter()
    with transaction.atomic():
        locked = ImportJob.objects.select_for_update().get(pk=job.pk)
        if locked.status != ImportStatus.IMPORTING or locked.rows_done != start:
            raise Stopped()
        plans = planner.plan(chunk, kept_rows)
        batch = _create_batch([plan for plan in plans if _batchable(plan)], actor, locked)
        if batch is None:  # the database refused the batch: its rows one at a time, planned
            plans = planner.plan(chunk)
            batch = {}
        for plan in plans:
            if plan.rejected:
                counts["failed"] += 1
                _record(locked, plan, plan.problems)
                continue
            if plan.outcome == RowOutcome.UNCHANGED:
                counts["skipped"] += 1
                continue
            created = batch.get(id(plan))
            if isinstance(created, ProductError):
                counts["failed"] += 1
                _record(locked, plan, planner.problems_of(created))
                continue
            if created is not None:
                counts["created"] += 1
                try:
                    notes = _published(plan, actor, created) if plan.publish else []
                except IntegrityError:  # kept as a draft, as a refusal to publish is
                    reason = _("This row could not be saved; try again.")
                    message = _("Saved as a draft, not published: %(reason)s") % {"reason": reason}
                    notes = [{"column": "", "message": message}]
                if notes:
                    _record(locked, plan, notes, rejected=False)
                continue
            try:
                with transaction.atomic():
                    added, notes = _write(plan, actor, locked, box)
            except ProductError as refusal:
                counts["failed"] += 1
                _record(locked, plan, planner.problems_of(refusal))
            except IntegrityError:
                counts["failed"] += 1
                problem = {"column": "", "message": _("This row could not be saved; try again.")}
                _record(locked, plan, [problem])
            else:
                counts["created" if plan.outcome == RowOutcome.NEW else "updated"] += 1
                counts["pictures"] += added
                if notes:
                    _record(locked, plan, notes, rejected=False)
        locked.rows_done = start + len(chunk)
        locked.created_count += counts["created"]
        locked.updated_count += counts["updated"]
        locked.skipped_count += counts["skipped"]
        locked.failed_count += counts["failed"]
        locked.pictures_added += counts["pictures"]
        locked.updated_at = timezone.now()
        locked.save()


def _batchable(plan: RowPlan) -> bool:
    """Whether the row is written with its batch (`catalog.services.products_create_many`):
    a new product without pictures. The others go one at a time through the services."""
    return (
        not plan.rejected
        and plan.outcome == RowOutcome.NEW
        and plan.product is None
        and not plan.pictures
        and not plan.untranslate
        and not plan.reorder
    )


def _create_batch(
    plans: Sequence[RowPlan], actor: User, job: ImportJob
) -> dict[int, Product | ProductError] | None:
    """The new products of a chunk, written together (drafts, with their translations and
    search-index outbox rows), by the plan's id: each product, or the refusal of its row.
    Publishing stays one row at a time, in the file's order (`_write_status`), so that a
    row is compared with the rows published before it, as when written one by one. When
    the database refuses the batch (a SKU taken meanwhile), nothing of it is written and
    None is answered: its rows go one at a time, each refused for itself."""
    if not plans:
        return {}
    # The plan's checked fields (`catalog.services.product_draft_check`): cleaned once.
    drafts = [(plan.checked or plan.fields, plan.translations) for plan in plans]
    try:
        with transaction.atomic():
            results = catalog.products_create_many(actor=actor, company=job.company, drafts=drafts)
    except ProductError as refusal:  # the uploader may no longer manage the products
        return {id(plan): refusal for plan in plans}
    except IntegrityError:
        logger.info("import %s: a batch was refused by the database; row by row", job.pk)
        return None
    return {id(plan): result for plan, result in zip(plans, results, strict=True)}


def _published(plan: RowPlan, actor: User, product: Product) -> list[dict[str, str]]:
    """`_write_status` of a product of a batch, in a savepoint of its own."""
    with transaction.atomic():
        return _write_status(plan, actor, product)


def _record(
    job: ImportJob, plan: RowPlan, problems: Sequence[dict[str, str]], *, rejected: bool = True
) -> None:
    """Keep what happened to a row while importing (refused, or not published)."""
    ImportRow.objects.update_or_create(
        job=job,
        line=plan.row.line,
        defaults={
            "sku": plan.sku,
            "outcome": RowOutcome.REJECTED if rejected else plan.outcome,
            "errors": list(problems),
            "warnings": plan.flags,
            "cells": plan.row.cells if rejected else [],
        },
    )


def _write(
    plan: RowPlan, actor: User, job: ImportJob, box: PictureBox | None
) -> tuple[int, list[dict[str, str]]]:
    """One product with its translations, pictures and status; answers the pictures added
    and why it was not published, if it was not."""
    # A row taken as the check kept it (`imports.kept`) holds a checked draft, no fields:
    # it is written with its batch, or planned again when the batch is refused.
    assert plan.product is not None or plan.fields, "a kept row is written by its batch"
    if plan.product is None:
        product = catalog.product_create(actor=actor, company=job.company, **plan.fields)
    elif plan.fields:
        product = catalog.product_update(actor=actor, product=plan.product, **plan.fields)
    else:
        product = plan.product
    for language in plan.untranslate:
        catalog.product_translation_remove(actor=actor, product=product, language=language)
    for language, (title, description) in plan.translations.items():
        catalog.product_translation_set(
            actor=actor, product=product, language=language, title=title, description=description
        )
    added = _write_pictures(plan, actor, product, box)
    return added, _write_status(plan, actor, product)


def _write_pictures(plan: RowPlan, actor: User, product: Product, box: PictureBox | None) -> int:
    for step in plan.pictures:
        assert box is not None  # a plan adds pictures only from a ZIP
        if step.replaces is not None:
            catalog.product_image_remove(actor=actor, product=product, image_id=step.replaces)
        image = catalog.product_image_add(
            actor=actor, product=product, upload=ContentFile(box.read(step.picture), name=step.name)
        )
        ImportedPicture.objects.create(
            product=product, image=image, name=step.name, sha256=step.sha256
        )
    if plan.reorder:
        _reorder(plan, actor, product)
    return len(plan.pictures)


def _reorder(plan: RowPlan, actor: User, product: Product) -> None:
    """The row's pictures first, in its order (the first is the main photo), then the
    product's others as they were."""
    current = list(
        ProductImage.objects.filter(product=product)
        .order_by("position", "id")
        .values_list("id", "image")
    )
    by_name = {str(name).rsplit("/", 1)[-1]: pk for pk, name in current}
    by_name.update(ImportedPicture.objects.filter(product=product).values_list("name", "image_id"))
    wanted = [by_name[name] for name in plan.picture_names if name in by_name]
    order = list(dict.fromkeys(wanted + [pk for pk, _name in current]))
    if order != [pk for pk, _name in current]:
        catalog.product_image_reorder(actor=actor, product=product, image_ids=order)


def _write_status(plan: RowPlan, actor: User, product: Product) -> list[dict[str, str]]:
    """Publish or unpublish as the row asks. A refusal to publish (an email address not
    confirmed, a suspended company, a listing not complete) keeps the product as a draft
    and is reported with the row."""
    if plan.publish is True and product.status == ProductStatus.DRAFT:
        try:
            with transaction.atomic():
                catalog.product_publish(actor=actor, product=product)
        except ProductError as refusal:
            message = _("Saved as a draft, not published: %(reason)s") % {"reason": refusal.message}
            return [{"column": "", "message": message}]
    elif plan.publish is False and product.status in (ProductStatus.PUBLISHED, ProductStatus.HELD):
        catalog.product_unpublish(actor=actor, product=product)
    return []

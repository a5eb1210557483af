"""The rows the check planned, kept for the import: what it found of them, so that the
import does not clean and compare them again (ADR 0027, "A row is cleaned once").

While the check (the preview) plans the file, two kinds of rows without pictures are written,
one JSON line a row, to a file beside the stored upload: a row it would add as a new product
(its line, its SKU, the catalogue's checked draft —
`catalog.services.CheckedDraft.dump` — its translations, whether it is to be published, its
garbled-text flags), and a row that changes nothing of its product (its line, its SKU, a
digest of the product as the row was compared with it — `planning.state_of` — and its flags).
The import reads that file in step with the rows, chunk after chunk, and hands the planner
the chunk's kept rows. A new row whose SKU still names no product and whose category is still
a leaf is written as checked; an unchanged row whose product is still as it was is skipped;
any other row is planned again, as before (the products as they are now). The file is a
cache, nothing more: a job without it (checked before it existed, a check that did not
finish, a version of this format not this one's, another file's) is planned again whole. It
goes with the job's end.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, Protocol

from django.db.models import Model

from tradepost.imports.models import ImportJob, RowOutcome
from tradepost.imports.planning import RowPlan, state_of

#: The format of the file; a file of another one is not read.
VERSION = 1


class Keep(Protocol):
    def __call__(self, plan: RowPlan) -> None: ...


def _path(job: ImportJob) -> Path:
    # The uploads' storage is a folder on this machine (`core.private_files`).
    return Path(job.file.storage.path(f"{job.file.name}.checked"))


def _by_id(value: Any) -> Any:
    """A model instance in a record, by its id (a draft's values hold the category by id
    already: this is the guard for one that does not)."""
    if isinstance(value, Model):
        return value.pk
    raise TypeError(f"{type(value).__name__} is not kept")


def _header(job: ImportJob) -> dict[str, Any]:
    return {"version": VERSION, "sha256": job.sha256, "encoding": job.encoding}


def keepable(plan: RowPlan) -> bool:
    """Whether the import may take the row as the check planned it: a new product without
    pictures, nothing refused; or a product the row changes nothing of, without pictures."""
    if plan.rejected or plan.pictures or plan.picture_names or plan.untranslate:
        return False
    if plan.outcome == RowOutcome.UNCHANGED:
        return plan.product is not None
    return plan.outcome == RowOutcome.NEW and plan.checked is not None and not plan.reorder


def _record(plan: RowPlan) -> dict[str, Any]:
    if plan.outcome == RowOutcome.UNCHANGED:
        assert plan.product is not None
        return {
            "line": plan.row.line,
            "sku": plan.sku,
            "state": state_of(plan.product),
            "flags": plan.flags,
        }
    assert plan.checked is not None
    return {
        "line": plan.row.line,
        "sku": plan.sku,
        "draft": plan.checked.dump(),
        "translations": plan.translations,
        "publish": plan.publish,
        "flags": plan.flags,
    }


@contextmanager
def keeping(job: ImportJob) -> Iterator[Keep]:
    """`keep(plan)` for each planned row while the check runs: the file is in place only when
    the check finished (a check stopped or failed leaves none, and none of an earlier one)."""
    path = _path(job)
    forget(job)
    # A name of this check's own: two workers checking one job (a stalled check queued again
    # while the first still runs) each write theirs, and the last to finish puts it in place.
    part = path.with_name(f"{path.name}.{secrets.token_hex(8)}.part")
    try:
        with part.open("w", encoding="utf-8", errors="surrogatepass") as out:
            out.write(json.dumps(_header(job)) + "\n")

            def keep(plan: RowPlan) -> None:
                if keepable(plan):
                    record = json.dumps(_record(plan), default=_by_id, ensure_ascii=False)
                    out.write(record + "\n")

            yield keep
        part.replace(path)
    finally:
        with suppress(FileNotFoundError):
            part.unlink()


def forget(job: ImportJob) -> None:
    """Remove the job's kept rows (the import finished, failed or is checked again)."""
    with suppress(FileNotFoundError, ValueError):
        _path(job).unlink()


class Kept:
    """A job's kept rows, read in the file's order: `upto(line)` answers, by line, those up to
    `line` not answered before."""

    def __init__(self, job: ImportJob) -> None:
        self._file: IO[str] | None = None
        self._next: dict[str, Any] | None = None
        try:
            self._file = _path(job).open(encoding="utf-8", errors="surrogatepass")
        except (FileNotFoundError, ValueError):
            return
        try:
            header = json.loads(self._file.readline() or "null")
        except ValueError:
            header = None
        if header != _header(job):
            self.close()
            return
        self._advance()

    def _advance(self) -> None:
        """The next record; none from a line that is not one (a file cut short, damaged):
        what follows is planned again."""
        self._next = None
        try:
            line = self._file.readline() if self._file is not None else ""
            record = json.loads(line) if line else None
        except ValueError:  # not UTF-8, not JSON
            return
        if (
            isinstance(record, dict)
            and type(record.get("line")) is int
            and isinstance(record.get("sku"), str)
        ):
            self._next = record

    def upto(self, line: int) -> dict[int, dict[str, Any]]:
        found: dict[int, dict[str, Any]] = {}
        while self._next is not None and self._next["line"] <= line:
            found[self._next["line"]] = self._next
            self._advance()
        return found

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._next = None

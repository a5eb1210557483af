"""A supplier's whole catalogue in one file: the pages under /<lang>/dashboard/imports/.

The upload page (with the templates to download and the catalogue's export), an import's
page (its progress while it is checked or imported, then the preview: counts, rejected rows
with their reasons, garbled cells, the encoding, the confirmation; then the result), the
small JSON status its progress bar polls (`tradepost/imports.js`), and the file of rejected
rows. Another company's import answers 404 like a missing one (`access_import`).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.forms import BaseForm
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tradepost.companies.models import Company
from tradepost.core.downloads import file_download
from tradepost.core.errors import DomainError
from tradepost.core.languages import LISTING_LANGUAGES
from tradepost.core.private_files import megabytes
from tradepost.imports import exports, selectors, services
from tradepost.imports.columns import COLUMNS, HEADER_LANGUAGES
from tradepost.imports.forms import ConfirmForm, RecheckForm, UploadForm
from tradepost.imports.models import ImportFormat, ImportJob, ImportStatus
from tradepost.imports.reading import ENCODINGS, max_bytes, max_rows
from tradepost.web.guards import company_required
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_form_errors, flash_refusal, show_on_form
from tradepost.web.templatetags.tradepost_catalog import format_number
from tradepost.web.views.accounts import AuthenticatedRequest

#: Imports listed on the upload page, and rows on a page of an import's page.
RECENT_IMPORTS = 10
ROWS_PER_PAGE = 50
#: The languages of the templates' column names, named in the reader's language.
_LANGUAGE_NAMES = dict(LISTING_LANGUAGES)


#: Uploads and exports are a company's catalogue.
company_needed = company_required(gettext_lazy("Create a company profile before adding products."))


def _detail_url(job: ImportJob) -> str:
    return reverse("imports:detail", kwargs={"pk": job.pk})


def _count_text(job: ImportJob) -> str:
    return _("%(done)s of %(total)s rows") % {
        "done": format_number(job.rows_done),
        "total": format_number(max(job.rows_total, job.rows_done)),
    }


@company_needed
@require_http_methods(["GET", "POST"])
def imports_page(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES) if request.method == "POST" else UploadForm()
    if request.method == "POST" and form.is_valid():
        try:
            job = services.import_upload(
                actor=request.user,
                company=company,
                language=get_language() or "en",
                **form.cleaned_data,
            )
        except DomainError as refusal:
            show_on_form(form, refusal)
        else:
            return redirect(_detail_url(job))
    context = {
        "company": company,
        "form": form,
        "imports": selectors.imports_of(company)[:RECENT_IMPORTS],
        "header_languages": [(code, _LANGUAGE_NAMES[code]) for code in HEADER_LANGUAGES],
        "formats": ImportFormat.values,
        "max_megabytes": megabytes(max_bytes()),
        "max_rows": max_rows(),
        "columns": COLUMNS,
        "language": get_language(),
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "imports/list.html", context, status=status)


@login_required
@require_GET
def import_detail(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    job = selectors.access_import(user=request.user, import_id=pk)
    rows = selectors.job_rows(job)
    page = paginate(request, rows, ROWS_PER_PAGE)
    for row in page.object_list:
        for flag in row.warnings:
            flag["damage_label"] = selectors.damage_label(flag["damage"])
    context = {
        "job": job,
        "summary": selectors.job_summary(job),
        "count_text": _count_text(job),
        "page": page,
        "confirm_form": ConfirmForm(initial={"mode": job.mode}),
        "recheck_form": RecheckForm(initial={"encoding": job.encoding}),
        "detected_encoding": ENCODINGS.get(job.detected_encoding, job.detected_encoding),
        "ready": job.status == ImportStatus.READY,
        "can_cancel": job.status
        in (ImportStatus.CHECKING, ImportStatus.READY, ImportStatus.IMPORTING),
        "can_recheck": job.file_format == ImportFormat.CSV
        and job.status in (ImportStatus.READY, ImportStatus.FAILED)
        and job.started_at is None,
    }
    return render(request, "imports/detail.html", context)


@login_required
@require_GET
def import_status(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    """What the progress bar shows: the status, rows done of rows, and whether it works."""
    job = selectors.access_import(user=request.user, import_id=pk)
    summary = selectors.job_summary(job)
    fields = ("status", "status_label", "working", "rows_done", "rows_total", "percent")
    response = JsonResponse(
        {**{key: summary[key] for key in fields}, "count_text": _count_text(job)}
    )
    response["Cache-Control"] = "private, no-store"
    return response


def _button(
    request: AuthenticatedRequest, pk: int, action, success: str, form: BaseForm | None = None
) -> HttpResponse:
    """Run `action` on the import and go back to its page, saying how it went; when `form`
    is not valid, nothing runs and its errors are said instead."""
    job = selectors.access_import(user=request.user, import_id=pk)
    if form is not None and not form.is_valid():
        flash_form_errors(request, form)
        return redirect(_detail_url(job))
    try:
        action(job)
    except DomainError as refusal:
        flash_refusal(request, refusal)
    else:
        messages.success(request, success)
    return redirect(_detail_url(job))


@login_required
@require_POST
def import_confirm(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    form = ConfirmForm(request.POST)
    return _button(
        request,
        pk,
        lambda job: services.import_confirm(
            actor=request.user, job=job, mode=form.cleaned_data["mode"]
        ),
        _("The import has started."),
        form,
    )


@login_required
@require_POST
def import_recheck(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    form = RecheckForm(request.POST)
    return _button(
        request,
        pk,
        lambda job: services.import_recheck(
            actor=request.user, job=job, encoding=form.cleaned_data["encoding"]
        ),
        _("The file is checked again in the encoding you chose."),
        form,
    )


@login_required
@require_POST
def import_cancel(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    return _button(
        request,
        pk,
        lambda job: services.import_cancel(actor=request.user, job=job),
        _("The import was cancelled."),
    )


def _download(download: exports.Download) -> HttpResponse | FileResponse:
    return file_download(
        download.content, name=download.filename, content_type=download.content_type
    )


@login_required
@require_GET
def import_rejected(request: AuthenticatedRequest, pk: int) -> HttpResponse | FileResponse:
    job = selectors.access_import(user=request.user, import_id=pk)
    return _download(exports.rejected_download(job))


@company_needed
@require_GET
def catalogue_export(
    request: AuthenticatedRequest, company: Company
) -> HttpResponse | FileResponse:
    return _download(
        exports.catalogue_export(
            user=request.user,
            company=company,
            file_format=request.GET.get("format"),
            language=request.GET.get("language") or get_language(),
        )
    )


@require_GET
def catalogue_template(request: HttpRequest) -> HttpResponse | FileResponse:
    return _download(
        exports.template_file(
            file_format=request.GET.get("format"),
            language=request.GET.get("language") or get_language(),
        )
    )

"""The open buying requests' records for the search index (`search.sources`; the buyer's
identity is never indexed), and the suppliers' response rates the product and company
documents carry (ADR 0007). Registered in `SourcingConfig.ready`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from tradepost.catalog.models import Category
from tradepost.companies.selectors import suspended_company_ids
from tradepost.core.database import id_chunks
from tradepost.search.documents import RequestRecord, id_batches, plain_text_memo
from tradepost.search.sources import RequestSource
from tradepost.sourcing.machine_texts import attach_request_texts
from tradepost.sourcing.models import BuyingRequest, RequestStatus
from tradepost.sourcing.responsiveness import supplier_responsiveness_many

_REQUEST_COLUMNS = (
    "id",
    "title",
    "description",
    "original_language",
    "category_id",
    "quantity",
    "destination_country",
    "deadline",
    "created_at",
    "updated_at",
)


def _open_requests() -> Any:
    """Searchable requests: open, deadline ahead, of a buyer in good standing."""
    return BuyingRequest.objects.filter(
        status=RequestStatus.OPEN, deadline__gt=timezone.now()
    ).exclude(buyer_id__in=suspended_company_ids())


def _request_record(row: dict[str, Any]) -> RequestRecord:
    return RequestRecord(
        id=row["id"],
        title=row["title"] or "",
        description=plain_text_memo(row["description"] or ""),
        original_language=row["original_language"] or "",
        category_id=row["category_id"],
        quantity=row["quantity"],
        destination_country=(row["destination_country"] or "").upper(),
        deadline=row["deadline"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load_open_requests(ids: Iterable[int]) -> dict[int, RequestRecord]:
    """The searchable requests among `ids` (open, deadline ahead); the others (closed,
    awarded, expired, past their deadline, deleted) are absent, so the indexer removes them."""
    found: dict[int, RequestRecord] = {}
    for chunk in id_batches(ids):
        for row in _open_requests().filter(id__in=chunk).values(*_REQUEST_COLUMNS):
            found[row["id"]] = _request_record(row)
    return found


def open_request_chunks(chunk_size: int) -> Iterator[list[RequestRecord]]:
    for rows in id_chunks(_open_requests, _REQUEST_COLUMNS, chunk_size):
        yield [_request_record(row) for row in rows]


def open_request_versions() -> Iterator[tuple[int, datetime]]:
    """(id, updated_at) of every searchable request, for `reindex --check`."""
    yield from (
        _open_requests().order_by("id").values_list("id", "updated_at").iterator(chunk_size=5000)
    )


def open_request_ids_in_categories(category_ids: Iterable[int]) -> list[int]:
    """Searchable requests filed under any of the categories or their descendants (a
    renamed category changes the names their documents hold)."""
    paths = list(Category.objects.filter(id__in=list(category_ids)).values_list("path", flat=True))
    ids: set[int] = set()
    for path in paths:
        ids.update(
            _open_requests()
            .filter(Q(category__path=path) | Q(category__path__startswith=f"{path}."))
            .values_list("id", flat=True)
        )
    return sorted(ids)


def open_request_ids_of_buyers(company_ids: Iterable[int]) -> list[int]:
    """The open requests of these buyers, whatever the buyer's standing."""
    return list(
        BuyingRequest.objects.filter(
            buyer_id__in=list(company_ids), status=RequestStatus.OPEN
        ).values_list("id", flat=True)
    )


def requests_awaiting_expiry(ids: Iterable[int]) -> set[int]:
    """Requests still open though past their deadline: they wait for the expiry job."""
    return set(
        BuyingRequest.objects.filter(id__in=list(ids), status=RequestStatus.OPEN).values_list(
            "id", flat=True
        )
    )


def response_rates(company_ids: list[int]) -> dict[int, float | None]:
    return {
        company_id: measured.response_rate
        for company_id, measured in supplier_responsiveness_many(company_ids).items()
    }


def open_requests_by_id(ids: list[int], language: str) -> dict[int, Any]:
    """The requests among `ids` still open with their deadline ahead, by a buyer in good
    standing, with buyer and category, and their text as a reader of `language` reads it
    (`machine_texts.attach_request_texts`)."""
    now = timezone.now()
    loaded = BuyingRequest.objects.select_related("buyer", "category").in_bulk(ids)
    shown = {
        pk: found
        for pk, found in loaded.items()
        if found.status == RequestStatus.OPEN
        and found.deadline > now
        and not found.buyer.is_suspended
    }
    attach_request_texts(shown.values(), language)
    return shown


SOURCE = RequestSource(
    load=load_open_requests,
    chunks=open_request_chunks,
    versions=open_request_versions,
    in_categories=open_request_ids_in_categories,
    of_buyers=open_request_ids_of_buyers,
    awaiting_expiry=requests_awaiting_expiry,
    objects=open_requests_by_id,
)

"""Percolation: each listing, buying request or supplier the search index has just taken in
is matched against every saved search, and each clear match is recorded once.

The percolator follows the search outbox (`search.models.IndexOutbox`) behind this node's
index: it reads the rows the index has applied, so every document it tests is in the index
as it now is (a listing hidden since is simply not there). For each document it

1. takes its naming tokens (title, keywords, attributes, category, company, machine-made
   titles: `_tokens`), and looks up the saved searches keyed by any of them
   (`Registry`: token -> alert ids, built from each alert's `keys`), plus the alerts with
   no words (filters only);
2. asks `search.alerting.clearly_matches` for each candidate (the saved search run on that
   one document, with the page's analysis and filters), with each alert's compiled query
   cached;
3. records the matches (`AlertMatch`, unique per alert and document) and its new position in
   one transaction. A crash anywhere before the commit loses nothing (the rows are read again)
   and a row read twice records nothing twice.

Only documents published after the alert was saved are alerted: older ones are what the
search itself shows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from tradepost.alerts.models import AlertKind, AlertMatch, PercolationCursor, SavedSearch
from tradepost.search import documents
from tradepost.search.alerting import (
    SavedQuery,
    clearly_matches,
    compile_saved,
    document_tokens,
)
from tradepost.search.documents import CategoryTree
from tradepost.search.index import (
    Shared,
    Snapshot,
    company_fields,
    product_fields,
    read_state,
    request_fields,
    snapshot,
)
from tradepost.search.models import IndexOutbox, OutboxKind

logger = logging.getLogger(__name__)

#: Outbox rows read in one go.
BATCH_SIZE = 500
#: Compiled saved searches kept in this process (each holds its tantivy queries).
COMPILED_CACHE_SIZE = 20_000
#: A compiled search's unit weights are measured again after this long.
COMPILED_TTL_SECONDS = 3600.0

_OUTBOX_KINDS: dict[str, str] = {
    OutboxKind.PRODUCT: AlertKind.PRODUCT,
    OutboxKind.REQUEST: AlertKind.REQUEST,
    OutboxKind.COMPANY: AlertKind.COMPANY,
}

#: The text fields a document names itself with (the clear-match rule's fields).
_NAMING_FIELDS = (
    "title_words",
    "title_grams",
    "extra_words",
    "machine_words",
    "name_words",
    "name_grams",
    "cproducts_words",
)


@dataclass
class _Entry:
    kind: str
    created_us: int
    version: datetime


@dataclass
class Registry:
    """Every active saved search, by the tokens that can make a document match it."""

    entries: dict[int, _Entry] = field(default_factory=dict)
    by_key: dict[str, dict[str, set[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    wordless: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    seen_until: datetime | None = None

    def refresh(self) -> None:
        """Take in the alerts saved or changed since the last look (a deleted one stays
        until the next full load; `_active` drops it before it is tested)."""
        rows = SavedSearch.objects.order_by("updated_at")
        if self.seen_until is not None:
            rows = rows.filter(updated_at__gte=self.seen_until)
        for pk, kind, keys, paused, created_at, updated_at in rows.values_list(
            "pk", "kind", "keys", "paused", "created_at", "updated_at"
        ).iterator(chunk_size=5000):
            self._forget(pk)
            if not paused:
                self._add(pk, kind, keys or [], created_at, updated_at)
            self.seen_until = updated_at

    def _forget(self, pk: int) -> None:
        entry = self.entries.pop(pk, None)
        if entry is None:
            return
        self.wordless[entry.kind].discard(pk)
        for ids in self.by_key[entry.kind].values():
            ids.discard(pk)

    def _add(
        self, pk: int, kind: str, keys: list[str], created_at: datetime, version: datetime
    ) -> None:
        self.entries[pk] = _Entry(kind, _us(created_at), version)
        if not keys:
            self.wordless[kind].add(pk)
        index = self.by_key[kind]
        for key in keys:
            index[key].add(pk)

    def candidates(self, kind: str, tokens: Iterable[str]) -> set[int]:
        index = self.by_key.get(kind, {})
        found: set[int] = set(self.wordless.get(kind, ()))
        for token in tokens:
            ids = index.get(token)
            if ids:
                found.update(ids)
        return found


def _us(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


class Percolator:
    """One process's percolator: its registry of saved searches and compiled queries."""

    def __init__(self) -> None:
        self.registry = Registry()
        self.compiled: OrderedDict[int, tuple[datetime, float, SavedQuery]] = OrderedDict()
        self.lock = threading.Lock()

    def compiled_query(self, alert: SavedSearch, snap: Snapshot) -> SavedQuery:
        now = time.monotonic()
        cached = self.compiled.get(alert.pk)
        if (
            cached is not None
            and cached[0] == alert.updated_at
            and now - cached[1] < COMPILED_TTL_SECONDS
        ):
            self.compiled.move_to_end(alert.pk)
            return cached[2]
        saved = compile_saved(alert.kind, alert.query, alert.params or {}, snap)
        self.compiled[alert.pk] = (alert.updated_at, now, saved)
        while len(self.compiled) > COMPILED_CACHE_SIZE:
            self.compiled.popitem(last=False)
        return saved

    def match(
        self, kind: str, tokens_by_id: dict[int, set[str]], published_us: dict[int, int]
    ) -> list[tuple[int, int]]:
        """(alert id, document id) for each clear match among these documents."""
        snap = snapshot()
        wanted: dict[int, set[int]] = {}
        for object_id, tokens in tokens_by_id.items():
            for alert_id in self.registry.candidates(kind, tokens):
                entry = self.registry.entries.get(alert_id)
                if entry is None or published_us.get(object_id, 0) < entry.created_us:
                    continue
                wanted.setdefault(alert_id, set()).add(object_id)
        if not wanted:
            return []
        alerts = {
            alert.pk: alert
            for alert in SavedSearch.objects.filter(pk__in=list(wanted), paused=False).only(
                "pk", "kind", "query", "params", "updated_at"
            )
        }
        found = []
        for alert_id, object_ids in wanted.items():
            alert = alerts.get(alert_id)
            if alert is None:
                continue
            saved = self.compiled_query(alert, snap)
            for object_id in sorted(object_ids):
                if clearly_matches(saved, object_id, snap):
                    found.append((alert_id, object_id))
        return found


_percolator: Percolator | None = None
_percolator_lock = threading.Lock()


def percolator() -> Percolator:
    global _percolator
    with _percolator_lock:
        if _percolator is None:
            _percolator = Percolator()
        return _percolator


def forget_percolator() -> None:
    """Drop this process's registry and compiled queries (tests; a restore)."""
    global _percolator
    with _percolator_lock:
        _percolator = None


def _tokens(fields: dict[str, Any]) -> set[str]:
    return document_tokens({name: fields.get(name) for name in _NAMING_FIELDS if name in fields})


def document_texts(kind: str, ids: list[int]) -> tuple[dict[int, set[str]], dict[int, int]]:
    """The naming tokens and publication time (microseconds) of the documents of `kind`
    that are searchable now, by id (built as the indexer builds them)."""
    tokens: dict[int, set[str]] = {}
    published: dict[int, int] = {}
    if not ids:
        return tokens, published
    if kind == AlertKind.COMPANY:
        for pk, record in documents.load_companies(ids).items():
            fields = company_fields(record)
            tokens[pk] = _tokens(fields)
            published[pk] = int(fields.get("published_us") or _us(timezone.now()))
        return tokens, published
    shared = Shared(CategoryTree.load())
    built: list[dict[str, Any]]
    if kind == AlertKind.PRODUCT:
        products = documents.load_published_products(ids)
        built = [product_fields(record, shared) for record in products.values()]
    else:
        requests = documents.load_open_requests(ids)
        built = [request_fields(record, shared) for record in requests.values()]
    for fields in built:
        pk = int(fields["id"])
        tokens[pk] = _tokens(fields)
        published[pk] = int(fields.get("published_us") or 0)
    return tokens, published


@dataclass
class PercolationReport:
    rows: int = 0
    documents: int = 0
    matches: int = 0


def percolate(*, batch_size: int = BATCH_SIZE, max_batches: int | None = None) -> PercolationReport:
    """Match the documents of the outbox rows this node's index has applied since the last
    run against every saved search; record the matches and the new position together."""
    report = PercolationReport()
    engine = percolator()
    with engine.lock:
        batches = 0
        while max_batches is None or batches < max_batches:
            state = read_state()
            if state is None:
                break
            upto = state.position
            if state.holes:  # rows that may still commit below the index's position
                upto = min(upto, min(state.holes) - 1)
            cursor = PercolationCursor.objects.order_by("pk").first()
            position = cursor.position if cursor is not None else 0
            if upto <= position:
                break
            rows = list(
                IndexOutbox.objects.filter(
                    pk__gt=position, pk__lte=upto, kind__in=list(_OUTBOX_KINDS)
                )
                .order_by("pk")
                .values_list("pk", "kind", "object_id")[:batch_size]
            )
            new_position = rows[-1][0] if len(rows) == batch_size else upto
            engine.registry.refresh()
            found: list[tuple[int, int]] = []
            by_kind: dict[str, set[int]] = defaultdict(set)
            for _pk, kind, object_id in rows:
                by_kind[_OUTBOX_KINDS[kind]].add(int(object_id))
            for kind, ids in by_kind.items():
                tokens, published = document_texts(kind, sorted(ids))
                report.documents += len(tokens)
                for alert_id, object_id in engine.match(kind, tokens, published):
                    found.append((alert_id, object_id))
            report.matches += _record(found, position, new_position)
            report.rows += len(rows)
            batches += 1
            if len(rows) < batch_size:
                break
    return report


def _record(found: list[tuple[int, int]], old: int, new: int) -> int:
    """Store the matches and move the position from `old` to `new`, in one transaction
    (nothing when another percolator moved it meanwhile: it recorded the same)."""
    now = timezone.now()
    with transaction.atomic():
        cursor = PercolationCursor.objects.select_for_update().order_by("pk").first()
        if cursor is None:
            cursor = PercolationCursor.objects.create(position=0)
        if cursor.position != old:
            return 0
        existing = set(
            AlertMatch.objects.filter(
                alert_id__in={a for a, _o in found}, object_id__in={o for _a, o in found}
            ).values_list("alert_id", "object_id")
        )
        fresh = [pair for pair in dict.fromkeys(found) if pair not in existing]
        live = set(
            SavedSearch.objects.filter(pk__in={a for a, _o in fresh}).values_list("pk", flat=True)
        )
        AlertMatch.objects.bulk_create(
            [
                AlertMatch(alert_id=alert_id, object_id=object_id, matched_at=now)
                for alert_id, object_id in fresh
                if alert_id in live
            ],
            ignore_conflicts=True,
        )
        PercolationCursor.objects.filter(pk=cursor.pk).update(position=new)
    return len([pair for pair in fresh if pair[0] in live])

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

import json
import logging
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from tradepost.alerts.models import AlertKind, AlertMatch, PercolationCursor, SavedSearch
from tradepost.search import documents
from tradepost.search.alerting import (
    ShownQuery,
    compile_shown,
    filter_clauses,
    shown_now,
    within_filters,
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
from tradepost.search.sketches import (
    DocumentTokens,
    clear_by_tokens,
    count_kind,
    count_units,
    is_wordless,
    keyed_bits,
    may_be_clear,
    narrow_by_tokens,
    registry_keys,
    weight,
)

logger = logging.getLogger(__name__)

#: Outbox rows read in one go.
BATCH_SIZE = 500
#: Saved searches kept compiled in this process (each holds its tantivy queries), for the
#: "shown now" check of the candidates that passed the clear-match rule.
COMPILED_CACHE_SIZE = 20_000
#: A unit's weight (how many documents hold it) is measured again after this long.
WEIGHT_TTL_SECONDS = 3600.0
#: Units whose weight is kept.
WEIGHT_CACHE_SIZE = 500_000
#: The alerts of a kind are keyed again when its number of documents moved by this share.
REKEY_SHARE = 0.25

_OUTBOX_KINDS: dict[str, str] = {
    OutboxKind.PRODUCT: AlertKind.PRODUCT,
    OutboxKind.REQUEST: AlertKind.REQUEST,
    OutboxKind.COMPANY: AlertKind.COMPANY,
}


@dataclass
class _Entry:
    pk: int
    kind: str
    created_us: int
    sketch: dict[str, Any]
    #: Each unit's key in the weight cache (made once).
    unit_keys: list[tuple[str, str]] = field(default_factory=list)
    #: (when measured, the documents of its kind then, the units' weights), or None.
    weights: tuple[float, int, list[float]] | None = None
    #: The bits of the units that have keys in the registry (`sketches.keyed_bits`).
    keyed: int = 0


WeightsOf = Callable[["_Entry"], list[float]]


@dataclass
class Registry:
    """Every active saved search, by the keys that can make a document match it
    (`sketches.registry_keys`, with the units' weights: the least specific units left out)."""

    entries: dict[int, _Entry] = field(default_factory=dict)
    #: kind -> key -> {alert id: the bits of what the key may mean for that alert}.
    by_key: dict[str, dict[str, dict[int, int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict))
    )
    wordless: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    #: Kinds with at least one key made of a pair of Chinese characters.
    pairs: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    keys_of: dict[int, list[str]] = field(default_factory=dict)
    seen_until: datetime | None = None

    def refresh(self, weights_of: WeightsOf | None = None) -> None:
        """Take in the alerts saved or changed since the last look (a deleted one stays
        until the next full load; `Percolator.match` drops it before it is tested)."""
        rows = SavedSearch.objects.order_by("updated_at")
        if self.seen_until is not None:
            rows = rows.filter(updated_at__gte=self.seen_until)
        for pk, kind, sketch, paused, created_at, updated_at in rows.values_list(
            "pk", "kind", "keys", "paused", "created_at", "updated_at"
        ).iterator(chunk_size=5000):
            self._forget(pk)
            if not paused and isinstance(sketch, dict):
                entry = _Entry(
                    pk,
                    kind,
                    _us(created_at),
                    sketch,
                    [
                        (kind, json.dumps(unit, ensure_ascii=False, separators=(",", ":")))
                        for unit in sketch.get("u", [])
                    ],
                )
                self.entries[pk] = entry
                self.key(pk, weights_of(entry) if weights_of is not None else None)
            self.seen_until = updated_at

    def _forget(self, pk: int) -> None:
        entry = self.entries.pop(pk, None)
        if entry is not None:
            self._unkey(pk, entry)

    def _unkey(self, pk: int, entry: _Entry) -> None:
        self.wordless[entry.kind].discard(pk)
        index = self.by_key[entry.kind]
        for key in self.keys_of.pop(pk, []):
            index[key].pop(pk, None)
            if key.startswith("p:"):
                self.pairs[entry.kind] -= 1

    def key(self, pk: int, weights: list[float] | None) -> None:
        """(Re)file an alert under its keys, chosen with these weights of its units."""
        entry = self.entries[pk]
        self._unkey(pk, entry)
        keys = registry_keys(entry.sketch, weights)
        entry.keyed = keyed_bits(weights, len(entry.sketch.get("u", [])))
        if is_wordless(entry.sketch):
            self.wordless[entry.kind].add(pk)
        index = self.by_key[entry.kind]
        for key, bits in keys.items():
            index[key][pk] = bits
            if key.startswith("p:"):
                self.pairs[entry.kind] += 1
        self.keys_of[pk] = list(keys)

    def candidates(self, kind: str, document: DocumentTokens) -> dict[int, int]:
        """The alerts this document holds a key of, each with the bits of the keys held
        (alerts without words: every document, with every bit)."""
        index = self.by_key.get(kind, {})
        found: dict[int, int] = dict.fromkeys(self.wordless.get(kind, ()), -1)
        for key in document.keys(with_pairs=self.pairs.get(kind, 0) > 0):
            held = index.get(key)
            if held:
                for alert_id, bits in held.items():
                    found[alert_id] = found.get(alert_id, 0) | bits
        return found


def _still(measured_at: float, documents_then: int, now: float, documents: int) -> bool:
    """Whether a measure made at `measured_at` over `documents_then` documents still holds."""
    if now - measured_at > WEIGHT_TTL_SECONDS:
        return False
    return abs(documents - documents_then) <= 0.1 * documents_then


def _us(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


class Percolator:
    """One process's percolator: its registry of saved searches, the weights of their
    units and the compiled queries of the alerts that matched lately."""

    def __init__(self) -> None:
        self.registry = Registry()
        self.compiled: OrderedDict[int, tuple[datetime, float, ShownQuery]] = OrderedDict()
        self.weights: OrderedDict[tuple[str, str], tuple[float, int, int]] = OrderedDict()
        self.documents: dict[str, tuple[int, int]] = {}
        self.lock = threading.Lock()
        self.snap: Snapshot | None = None
        #: (kind, filter parameters as JSON) -> (when made, their index clauses).
        self.filters: OrderedDict[tuple[str, str], tuple[float, list[Any]]] = OrderedDict()
        #: kind -> its number of documents when its alerts were last keyed.
        self.keyed: dict[str, int] = {}
        self.rekeyed = 0

    def refresh(self) -> None:
        """Take in new and changed alerts, their keys chosen with their units' weights; and
        when the number of documents of a kind moved by more than a tenth since its alerts
        were keyed, key them all again (their weights moved: a unit left out of the keys as
        common may not be any more)."""
        self.snap = snap = snapshot()
        self.registry.refresh(self.entry_weights)
        for kind in {entry.kind for entry in self.registry.entries.values()}:
            documents = self._documents(kind, snap)
            keyed = self.keyed.get(kind)
            if keyed is not None and abs(documents - keyed) <= REKEY_SHARE * keyed:
                continue
            for pk, entry in self.registry.entries.items():
                if entry.kind == kind:
                    self.registry.key(pk, self.known_weights(entry, documents))
            self.keyed[kind] = documents
            self.rekeyed += 1

    def _documents(self, kind: str, snap: Snapshot) -> int:
        """How many documents of `kind` this snapshot holds (the weights' N: counted on the
        same snapshot as the units, or the weights are skewed)."""
        cached = self.documents.get(kind)
        if cached is not None and cached[0] == snap.generation:
            return cached[1]
        count = count_kind(kind, snap)
        self.documents[kind] = (snap.generation, count)
        return count

    def known_weights(self, entry: _Entry, documents: int) -> list[float] | None:
        """The units' weights from the counts already made (None when a unit was never
        counted: its keys are then all filed), for keying many alerts at once."""
        weights = []
        for key in entry.unit_keys:
            cached = self.weights.get(key)
            if cached is None:
                return None
            weights.append(weight(cached[2], documents))
        return weights

    def entry_weights(self, entry: _Entry) -> list[float]:
        """Each unit's specificity now: measured again after an hour, or sooner when the
        number of documents of its kind moved by more than a tenth (a young marketplace)."""
        now = time.monotonic()
        snap = self.snap or snapshot()
        documents = self._documents(entry.kind, snap)
        if entry.weights is not None and _still(entry.weights[0], entry.weights[1], now, documents):
            return entry.weights[2]
        weights = []
        for key, (_unit, ways) in zip(entry.unit_keys, entry.sketch.get("u", []), strict=True):
            cached = self.weights.get(key)
            if cached is None or not _still(cached[0], cached[1], now, documents):
                cached = (now, documents, count_units(entry.kind, ways, snap))
                self.weights[key] = cached
                while len(self.weights) > WEIGHT_CACHE_SIZE:
                    self.weights.popitem(last=False)
            weights.append(weight(cached[2], documents))
        measured_before = entry.weights is not None
        entry.weights = (now, documents, weights)
        if measured_before and entry.pk in self.registry.entries:
            self.registry.key(entry.pk, weights)  # measured again: its keys may change
        return weights

    def compiled_query(self, alert: SavedSearch, snap: Snapshot) -> ShownQuery:
        now = time.monotonic()
        cached = self.compiled.get(alert.pk)
        if (
            cached is not None
            and cached[0] == alert.updated_at
            and now - cached[1] < WEIGHT_TTL_SECONDS
        ):
            self.compiled.move_to_end(alert.pk)
            return cached[2]
        shown = compile_shown(alert.kind, alert.query, alert.params or {}, snap)
        self.compiled[alert.pk] = (alert.updated_at, now, shown)
        while len(self.compiled) > COMPILED_CACHE_SIZE:
            self.compiled.popitem(last=False)
        return shown

    def clear_candidates(
        self, kind: str, document: DocumentTokens, published_us: int, snap: Snapshot
    ) -> list[int]:
        """The alerts this document matches clearly (the rule on its tokens)."""
        self.snap = snap
        found = []
        entries = self.registry.entries
        for alert_id, bits in self.registry.candidates(kind, document).items():
            entry = entries.get(alert_id)
            if entry is None or published_us < entry.created_us:
                continue
            if is_wordless(entry.sketch):
                found.append(alert_id)
                continue
            weights = self.entry_weights(entry)
            if may_be_clear(weights, bits, entry.keyed) and clear_by_tokens(
                entry.sketch, weights, document
            ):
                found.append(alert_id)
        return found

    def match(
        self, kind: str, documents: dict[int, DocumentTokens], published_us: dict[int, int]
    ) -> list[tuple[int, int]]:
        """(alert id, document id) for each clear match among these documents that the
        alert's search, run now, shows."""
        snap = snapshot()
        wanted: dict[int, set[int]] = {}
        for object_id, document in documents.items():
            for alert_id in self.clear_candidates(
                kind, document, published_us.get(object_id, 0), snap
            ):
                wanted.setdefault(alert_id, set()).add(object_id)
        if not wanted:
            return []
        alerts: dict[int, SavedSearch] = {}
        ids = sorted(wanted)
        for start in range(0, len(ids), 5000):
            rows = SavedSearch.objects.filter(pk__in=ids[start : start + 5000], paused=False)
            alerts.update(
                (alert.pk, alert)
                for alert in rows.only("pk", "kind", "query", "params", "updated_at")
            )
        within: dict[tuple[str, int], bool] = {}
        found = []
        for alert_id, object_ids in wanted.items():
            alert = alerts.get(alert_id)
            entry = self.registry.entries.get(alert_id)
            if alert is None or entry is None:
                continue
            for object_id in sorted(object_ids):
                if self._shown(alert, entry, documents[object_id], object_id, snap, within):
                    found.append((alert_id, object_id))
        return found

    def _shown(
        self,
        alert: SavedSearch,
        entry: _Entry,
        document: DocumentTokens,
        object_id: int,
        snap: Snapshot,
        within: dict[tuple[str, int], bool],
    ) -> bool:
        """Whether the alert's search, run now, shows the document. A document holding the
        page's narrow share of the units where it names itself is among the results
        whatever the rest of the catalogue (the page only ever widens): then only the
        filters are asked of the index, once per set of filters and document. Otherwise
        the page's own query is asked (`alerting.shown_now`)."""
        if narrow_by_tokens(entry.sketch, document):
            if not alert.params:
                return True
            params = json.dumps(alert.params, sort_keys=True)
            key = (params, object_id)
            if key not in within:
                within[key] = within_filters(
                    alert.kind, self._filters(alert.kind, params), object_id, snap
                )
            return within[key]
        return shown_now(self.compiled_query(alert, snap), object_id, snap)

    def _filters(self, kind: str, params: str) -> list[Any]:
        key = (kind, params)
        found = self.filters.get(key)
        if found is None or time.monotonic() - found[0] > 60.0:
            found = (time.monotonic(), filter_clauses(kind, json.loads(params)))
            self.filters[key] = found
            while len(self.filters) > 10_000:
                self.filters.popitem(last=False)
        return found[1]


_percolator: Percolator | None = None
_percolator_lock = threading.Lock()


def percolator() -> Percolator:
    global _percolator
    with _percolator_lock:
        if _percolator is None:
            _percolator = Percolator()
        return _percolator


def forget_percolator() -> None:
    """Drop this process's registry, weights and compiled queries (tests; a restore)."""
    global _percolator
    with _percolator_lock:
        _percolator = None


def document_texts(kind: str, ids: list[int]) -> tuple[dict[int, DocumentTokens], dict[int, int]]:
    """The naming tokens and publication time (microseconds) of the documents of `kind`
    that are searchable now, by id (built as the indexer builds them)."""
    tokens: dict[int, DocumentTokens] = {}
    published: dict[int, int] = {}
    if not ids:
        return tokens, published
    built: list[dict[str, Any]]
    if kind == AlertKind.COMPANY:
        built = [company_fields(record) for record in documents.load_companies(ids).values()]
    else:
        shared = Shared(CategoryTree.load())
        if kind == AlertKind.PRODUCT:
            products = documents.load_published_products(ids)
            built = [product_fields(record, shared) for record in products.values()]
        else:
            requests = documents.load_open_requests(ids)
            built = [request_fields(record, shared) for record in requests.values()]
    now_us = _us(timezone.now())
    for fields in built:
        pk = int(fields["id"])
        tokens[pk] = DocumentTokens.from_fields(kind, fields)
        published[pk] = int(fields.get("published_us") or now_us)
    return tokens, published


@dataclass
class PercolationReport:
    rows: int = 0
    documents: int = 0
    matches: int = 0
    #: The alerts that got new matches.
    alerts: set[int] = field(default_factory=set)


def percolate(*, batch_size: int = BATCH_SIZE, max_batches: int | None = None) -> PercolationReport:
    """Match the documents of the outbox rows this node's index has applied since the last
    run against every saved search; record the matches and the new position together.

    The index's holes (ids it passed before their transaction committed, or that rolled
    back) are not applied yet: they are passed too, remembered with the position, and
    matched once the index no longer counts them as holes (applied late, or given up)."""
    report = PercolationReport()
    engine = percolator()
    with engine.lock:
        batches = 0
        while max_batches is None or batches < max_batches:
            state = read_state()
            if state is None:
                break
            index_holes = {int(hole) for hole in state.holes}
            cursor = PercolationCursor.objects.order_by("pk").first()
            position = cursor.position if cursor is not None else 0
            remembered = [int(hole) for hole in (cursor.holes if cursor is not None else [])]
            late = [hole for hole in remembered if hole not in index_holes]
            if state.position <= position and not late:
                break
            rows = list(
                IndexOutbox.objects.filter(
                    pk__gt=position, pk__lte=state.position, kind__in=list(_OUTBOX_KINDS)
                )
                .exclude(pk__in=sorted(index_holes))
                .order_by("pk")
                .values_list("pk", "kind", "object_id")[:batch_size]
            )
            new_position = rows[-1][0] if len(rows) == batch_size else state.position
            rows += IndexOutbox.objects.filter(
                pk__in=late, kind__in=list(_OUTBOX_KINDS)
            ).values_list("pk", "kind", "object_id")
            holes = sorted(
                {hole for hole in remembered if hole in index_holes}
                | {hole for hole in index_holes if position < hole <= new_position}
            )
            engine.refresh()
            found: list[tuple[int, int]] = []
            by_kind: dict[str, set[int]] = defaultdict(set)
            for _pk, kind, object_id in rows:
                by_kind[_OUTBOX_KINDS[kind]].add(int(object_id))
            for kind, ids in by_kind.items():
                tokens, published = document_texts(kind, sorted(ids))
                report.documents += len(tokens)
                for alert_id, object_id in engine.match(kind, tokens, published):
                    found.append((alert_id, object_id))
            recorded = _record(found, position, new_position, holes)
            report.matches += len(recorded)
            report.alerts.update(alert_id for alert_id, _object_id in recorded)
            report.rows += len(rows)
            batches += 1
            if new_position >= state.position:
                break
    return report


def _record(
    found: list[tuple[int, int]], old: int, new: int, holes: list[int]
) -> list[tuple[int, int]]:
    """Store the matches and move the position from `old` to `new`, in one transaction
    (nothing when another percolator moved it meanwhile: it recorded the same); the pairs
    recorded."""
    now = timezone.now()
    with transaction.atomic():
        cursor = PercolationCursor.objects.select_for_update().order_by("pk").first()
        if cursor is None:
            cursor = PercolationCursor.objects.create(position=0)
        if cursor.position != old:
            return []
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
        PercolationCursor.objects.filter(pk=cursor.pk).update(position=new, holes=holes)
    return [pair for pair in fresh if pair[0] in live]
